package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.source.ScanRequest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;

/**
 * How {@code deja scan} reads the files it is given: HAProxy configs (variables, version,
 * instances) and Helm charts.
 */
final class FileOptions {
    Map<String, String> env = new LinkedHashMap<>();

    String haproxyVersion;

    boolean haproxyOneInstance;

    Integer haproxyInstances;

    int assumeClientRps;

    List<Path> helmValues = new ArrayList<>();

    List<String> helmSet = new ArrayList<>();

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--env")
                        .label("KEY=VALUE")
                        .description(
                                "Value for an environment variable used in HAProxy configs (\"$${VAR}\")")
                        .map(this, "env"));
        s.addOption(
                Opt.named("--haproxy-version")
                        .label("X.Y")
                        .description(
                                "HAProxy version for .if version_atleast()/version_before() (default: current LTS)")
                        .value(String.class, this, "haproxyVersion"));
        s.addOption(
                Opt.named("--haproxy-one-instance")
                        .description(
                                "Read all HAProxy files given as one instance, in order (like haproxy -f a.cfg -f b.cfg); by default each file is its own instance")
                        .flag(this, "haproxyOneInstance"));
        s.addOption(
                Opt.named("--haproxy-instances")
                        .label("N")
                        .description(
                                "How many HAProxy instances run each configuration scanned (a fleet of load balancers, one per node); 2 or more lets haproxy-roundrobin-same-start judge configurations without a peers section")
                        .value(Integer.class, this, "haproxyInstances"));
        s.addOption(
                Opt.named("--assume-client-rps")
                        .label("N")
                        .defaultValue("300")
                        .description(
                                "Request rate of one abusive client, for tarpit arithmetic (default: ${DEFAULT-VALUE}, as in IL-0264)")
                        .value(int.class, this, "assumeClientRps"));
        s.addOption(
                Opt.named("--helm-values")
                        .label("FILE")
                        .split("\u0000")
                        .splitLabel("")
                        .description(
                                "Values file for the Helm charts scanned (repeatable; as helm template -f)")
                        .list(Path.class, this, "helmValues"));
        s.addOption(
                Opt.named("--helm-set")
                        .label("KEY=VALUE")
                        .split("\u0000")
                        .splitLabel("")
                        .description(
                                "Value for the Helm charts scanned (repeatable; as helm template --set)")
                        .list(String.class, this, "helmSet"));
    }

    void check() {
        if (assumeClientRps < 1) {
            throw new InputException(
                    "--assume-client-rps: must be at least 1 request per second, not "
                            + assumeClientRps);
        }
        if (haproxyInstances != null && haproxyInstances < 1) {
            throw new InputException(
                    "--haproxy-instances: must be at least 1, not " + haproxyInstances);
        }
        if (haproxyVersion != null
                && !haproxyVersion.strip().matches("\\d+(\\.\\d+){0,3}(-[A-Za-z0-9.]+)?")) {
            throw new InputException(
                    "--haproxy-version: '"
                            + haproxyVersion
                            + "' is not a HAProxy version (e.g. 2.8, 3.2.1)");
        }
    }

    void checkHelmSet() {
        for (String s : helmSet) {
            if (s.indexOf('=') <= 0) {
                throw new InputException(
                        "--helm-set '" + s + "': expected KEY=VALUE (as helm --set)");
            }
        }
    }

    /** The rule settings these options give ({@link dev.deja.engine.Settings} keys). */
    void settings(Map<String, String> knobs) {
        knobs.put("assume-client-rps", Integer.toString(assumeClientRps));
        if (haproxyInstances != null) {
            knobs.put("haproxy-instances", Integer.toString(haproxyInstances));
        }
    }

    void into(ScanRequest.Builder req) {
        req.env = new LinkedHashMap<>(env);
        req.haproxyVersion = haproxyVersion;
        req.haproxyOneInstance = haproxyOneInstance;
        req.helmValues = List.copyOf(helmValues);
        req.helmSet = List.copyOf(helmSet);
    }
}
