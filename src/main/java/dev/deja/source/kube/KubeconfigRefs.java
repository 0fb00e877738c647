package dev.deja.source.kube;

import dev.deja.source.InputFiles;
import java.io.File;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The files a kubeconfig refers to, resolved as kubectl resolves them (client-go {@code
 * clientcmd/loader.go}: {@code GetClusterFileReferences} = {@code certificate-authority}; {@code
 * GetAuthInfoFileReferences} = {@code client-certificate}, {@code client-key}, {@code tokenFile},
 * and the exec plugin's {@code command} only when it contains a path separator, i.e. is not looked
 * up on the PATH; {@code ResolvePaths} joins a relative path to the folder of the kubeconfig file
 * that defines it). Plus the oidc auth provider's {@code idp-certificate-authority}, a file the
 * provider reads as given. Loads no Fabric8 class: used before any scan work to keep outputs off
 * them.
 */
public final class KubeconfigRefs {
    /** Keys of a {@code clusters[].cluster} that name a file. */
    static final List<String> CLUSTER_FILES = List.of("certificate-authority");

    /** Keys of a {@code users[].user} that name a file. */
    static final List<String> USER_FILES = List.of("client-certificate", "client-key", "tokenFile");

    private KubeconfigRefs() {}

    /**
     * A file a kubeconfig refers to: what it is ("client-key /x/a.key of user alice in kubeconfig
     * kc.yaml"), its path.
     */
    public record Ref(String role, Path path) {}

    /**
     * {@code p} as kubectl reads it: a relative path joined to {@code dir}, the kubeconfig file's
     * folder, and cleaned ({@code filepath.Join}); an absolute one as written.
     */
    static String resolve(Path dir, String p) {
        return dir == null || Path.of(p).isAbsolute() ? p : dir.resolve(p).normalize().toString();
    }

    /**
     * The exec plugin's command: a path when it has a separator (resolved against {@code dir}),
     * else a PATH name.
     */
    static String resolveCommand(Path dir, String command) {
        return command.indexOf(File.separatorChar) >= 0 ? resolve(dir, command) : command;
    }

    /**
     * Every file the kubeconfig {@code file} refers to; empty when it cannot be read or is not a
     * kubeconfig (a scan that uses it reports that itself).
     */
    public static List<Ref> of(Path file) {
        Object doc;
        try {
            LoaderOptions o = new LoaderOptions();
            o.setMaxAliasesForCollections(10);
            doc = new Yaml(new SafeConstructor(o)).load(InputFiles.readText(file));
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
        List<Ref> out = new ArrayList<>();
        if (!(doc instanceof Map<?, ?> m)) {
            return out;
        }
        Path dir = file.toAbsolutePath().getParent();
        for (Map<?, ?> c : bodies(m.get("clusters"), "cluster")) {
            for (String k : CLUSTER_FILES) {
                add(out, k, " of cluster " + c.get("name"), file, dir, c.get(k), false);
            }
        }
        for (Map<?, ?> u : bodies(m.get("users"), "user")) {
            String who = " of user " + u.get("name");
            for (String k : USER_FILES) {
                add(out, k, who, file, dir, u.get(k), false);
            }
            if (u.get("exec") instanceof Map<?, ?> exec
                    && exec.get("command") instanceof String cmd
                    && cmd.indexOf(File.separatorChar) >= 0) {
                add(out, "exec command", who, file, dir, cmd, false);
            }
            if (u.get("auth-provider") instanceof Map<?, ?> ap
                    && ap.get("config") instanceof Map<?, ?> cfg) {
                add(
                        out,
                        "auth-provider idp-certificate-authority",
                        who,
                        file,
                        null,
                        cfg.get("idp-certificate-authority"),
                        true);
            }
        }
        return out;
    }

    private static void add(
            List<Ref> out,
            String key,
            String owner,
            Path file,
            Path dir,
            Object value,
            boolean asGiven) {
        if (value instanceof String p && !p.isBlank()) {
            try {
                Path path = Path.of(asGiven ? p : resolve(dir, p));
                out.add(new Ref(key + " " + path + owner + " in kubeconfig " + file, path));
            } catch (InvalidPathException e) {
                // not a path any reader could open
            }
        }
    }

    /**
     * The bodies of a named list ({@code clusters: [{name, cluster: {...}}]}), each with its
     * entry's name put under "name" (for messages).
     */
    private static List<Map<?, ?>> bodies(Object list, String inner) {
        List<Map<?, ?>> out = new ArrayList<>();
        if (list instanceof List<?> l) {
            for (Object o : l) {
                if (o instanceof Map<?, ?> entry && entry.get(inner) instanceof Map<?, ?> body) {
                    Map<Object, Object> b = new LinkedHashMap<>(body);
                    b.put("name", entry.get("name"));
                    out.add(b);
                }
            }
        }
        return out;
    }
}
