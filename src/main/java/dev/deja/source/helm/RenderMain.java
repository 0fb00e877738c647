package dev.deja.source.helm;

import com.marcnuri.helm.TemplateCommand;
import com.marcnuri.helm.jni.HelmLib;
import com.marcnuri.helm.jni.NativeLibrary;
import com.sun.jna.Native;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ServiceLoader;
import java.util.jar.JarEntry;

/**
 * The child process that renders a chart with Helm for the JVM (helm-java), when there is no {@code
 * helm} on the PATH: {@code java -cp deja.jar dev.deja.source.helm.RenderMain CHART N VALUES...
 * SETS...}. It prints the rendered manifests on stdout and exits 0, or prints Helm's message on
 * stderr and exits 1; the parent bounds its time and memory ({@link BoundedProcess}).
 */
public final class RenderMain {
    /** The folder where the native library is kept once extracted (the parent's choice). */
    static final String CACHE_PROPERTY = "deja.helm.cache";

    private RenderMain() {}

    /**
     * Helm for the JVM's native library, loaded from {@code cache} where it was extracted before
     * (named by the jar entry's CRC and size, written through a temporary file and a rename), else
     * extracted as helm-java does (to java.io.tmpdir, 94.5 MB each run).
     */
    static HelmLib load(NativeLibrary nl, Path cache) {
        if (cache != null) {
            try {
                URL url = nl.getClass().getResource("/" + nl.getBinaryName());
                if (url != null && url.openConnection() instanceof JarURLConnection c) {
                    c.setUseCaches(false);
                    JarEntry e = c.getJarEntry();
                    if (e != null && e.getSize() > 0 && e.getCrc() >= 0) {
                        Path so =
                                cache.resolve(
                                        "helm-"
                                                + Long.toHexString(e.getCrc())
                                                + "-"
                                                + e.getSize()
                                                + "-"
                                                + nl.getBinaryName());
                        if (!Files.isRegularFile(so, LinkOption.NOFOLLOW_LINKS)
                                || Files.size(so) != e.getSize()) {
                            Path tmp = Files.createTempFile(cache, ".helm-", ".tmp");
                            try (InputStream in = c.getInputStream()) {
                                Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                                Files.move(tmp, so, StandardCopyOption.ATOMIC_MOVE);
                            } finally {
                                Files.deleteIfExists(tmp);
                            }
                        }
                        return Native.load(so.toString(), HelmLib.class);
                    }
                }
            } catch (IOException | UnsatisfiedLinkError e) {
                // the cache cannot be used: extract as helm-java does
            }
        }
        return nl.load();
    }

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        // helm-java fetches its native library from the network when none is on the class path:
        // never
        java.util.Iterator<NativeLibrary> found =
                ServiceLoader.load(NativeLibrary.class).iterator();
        if (!found.hasNext()) {
            System.err.println(
                    "this build of deja carries no Helm library for "
                            + System.getProperty("os.name")
                            + "/"
                            + System.getProperty("os.arch")
                            + ": put helm on the PATH");
            System.exit(3);
        }
        try {
            String cache = System.getProperty(CACHE_PROPERTY);
            HelmLib lib = load(found.next(), cache == null ? null : Path.of(cache));
            TemplateCommand t =
                    new TemplateCommand(lib, Path.of(args[0]))
                            .withName(HelmRenderer.RELEASE)
                            .withNamespace(HelmRenderer.NAMESPACE);
            int n = Integer.parseInt(args[1]);
            for (int i = 0; i < n; i++) {
                t = t.withValuesFile(Path.of(args[2 + i]));
            }
            for (int i = 2 + n; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                t = t.set(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            String rendered = t.call();
            out.print(rendered);
            out.flush();
            System.exit(out.checkError() ? 4 : 0);
        } catch (RuntimeException | LinkageError e) {
            System.err.println(String.valueOf(e.getMessage()));
            System.exit(e instanceof IllegalStateException ? 1 : 3);
        }
    }
}
