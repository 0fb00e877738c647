package dev.deja.cli;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * {@code deja scan --help}: the options under one heading per option group (the mixins of {@link
 * ScanCommand}).
 */
final class ScanHelp {
    private ScanHelp() {}

    /**
     * The option groups' headings in {@code deja scan --help}, by mixin field; the command's own
     * options come last.
     */
    private static final Map<String, String> HEADINGS =
            headings(
                    "rules",
                    "Rules and findings",
                    "out",
                    "Report, outputs and exit code",
                    "files",
                    "Files: HAProxy configs and Helm charts",
                    "prove",
                    "Proof on the real haproxy (--prove)",
                    "kube",
                    "Live Kubernetes (--cluster)",
                    "live",
                    "Live proxy figures (--haproxy-runtime, --prometheus)",
                    "aws",
                    "AWS load balancers (--aws)",
                    "fleet",
                    "Several clusters or accounts",
                    "config",
                    "General");

    private static Map<String, String> headings(String... pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    /** {@code deja scan --help} lists the options under one heading per group. */
    static void groupOptions(CommandLine scan) {
        scan.getHelpSectionMap()
                .put(
                        UsageMessageSpec.SECTION_KEY_OPTION_LIST,
                        help -> {
                            CommandSpec cs = help.commandSpec();
                            StringBuilder sb =
                                    new StringBuilder(); // PATH: in the parameter list above
                            Set<String> listed = new HashSet<>();
                            for (Map.Entry<String, String> h : HEADINGS.entrySet()) {
                                List<OptionSpec> group = new ArrayList<>();
                                CommandSpec mixin = cs.mixins().get(h.getKey());
                                Set<String> names = new HashSet<>();
                                if (mixin != null) {
                                    mixin.options().forEach(o -> names.add(o.longestName()));
                                }
                                boolean last = h.getKey().equals("config");
                                for (OptionSpec o : cs.options()) {
                                    if (!o.hidden()
                                            && (names.contains(o.longestName())
                                                    || last && !listed.contains(o.longestName()))) {
                                        group.add(o);
                                        listed.add(o.longestName());
                                    }
                                }
                                CommandLine.Help.Layout t = help.createDefaultLayout();
                                t.addOptions(group, help.parameterLabelRenderer());
                                sb.append(String.format("%n%s:%n", h.getValue())).append(t);
                            }
                            return sb.toString();
                        });
    }
}
