package dev.deja.cli;

import dev.deja.source.ScanRequest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The report header's account of what a scan looked at. */
final class ScanScope {
    private ScanScope() {}

    /**
     * What this scan looked at, for the report's header: cluster and context, namespaces, selector,
     * regions, files; {@code clusterRead} is the context and server the scan read (its {@link
     * dev.deja.source.ScanTrace}), or null; {@code contextNamespaces} the namespace each cluster's
     * context scoped the scan to (by context name, only those that set one and were not overridden
     * by -n or -A).
     */
    static Map<String, String> of(
            ScanRequest req,
            List<FleetScan.Spec> specs,
            String clusterRead,
            Map<String, String> contextNamespaces) {
        Map<String, String> m = new LinkedHashMap<>();
        long clusters = specs.stream().filter(FleetScan.Spec::kube).count();
        long accounts = specs.stream().filter(s -> !s.kube()).count();
        if (clusters > 1) {
            m.put("clusters", clusters + ": " + FleetScan.names(specs, true));
        }
        if (accounts > 1) {
            m.put("AWS accounts", accounts + ": " + FleetScan.names(specs, false));
        }
        if (req.cluster) {
            if (clusters <= 1) {
                m.put(
                        "cluster",
                        clusterRead != null
                                ? clusterRead
                                : req.context != null
                                        ? "context " + req.context
                                        : "current context");
            }
            m.put("namespaces", namespaces(req, clusters, contextNamespaces));
            if (req.selector != null && !req.selector.isBlank()) {
                m.put("selector", req.selector);
            }
        }
        if (req.aws) {
            m.put(
                    "AWS regions",
                    req.regions.isEmpty() ? "the default region" : String.join(", ", req.regions));
            if (req.profile != null && accounts <= 1) {
                m.put("AWS profile", req.profile);
            }
        }
        if (!req.paths.isEmpty()) {
            List<String> shown = req.paths.stream().limit(5).toList();
            m.put(
                    "files",
                    String.join(", ", shown)
                            + (req.paths.size() > 5
                                    ? " and " + (req.paths.size() - 5) + " more"
                                    : ""));
        }
        if (req.prometheus != null) {
            m.put("Prometheus", req.prometheus + " (peaks over the last " + req.window + ")");
        }
        if (!req.haproxyConfigMaps.isEmpty()) {
            m.put("HAProxy ConfigMaps", String.join(", ", req.haproxyConfigMaps));
        }
        return m;
    }

    /**
     * "all", "shop, web" (-n), "shop (the context's namespace; -A for all)", or for several
     * clusters "all, but the context's namespace for prod: shop".
     */
    private static String namespaces(
            ScanRequest req, long clusters, Map<String, String> contextNamespaces) {
        if (!req.namespaces.isEmpty()) {
            return String.join(", ", req.namespaces);
        }
        if (contextNamespaces == null || contextNamespaces.isEmpty()) {
            return req.allNamespaces ? "all (-A)" : "all";
        }
        if (clusters <= 1 && contextNamespaces.size() == 1) {
            return contextNamespaces.values().iterator().next()
                    + " (the context's namespace; -A for all)";
        }
        List<String> each = new ArrayList<>();
        contextNamespaces.forEach((ctx, ns) -> each.add(ctx + ": " + ns));
        return "all, but the context's namespace for " + String.join(", ", each) + " (-A for all)";
    }
}
