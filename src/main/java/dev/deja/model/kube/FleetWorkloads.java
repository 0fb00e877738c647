package dev.deja.model.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.UnreadKinds;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a fleet scan (several clusters read in one run) keeps of each cluster once its snapshot is
 * dropped, for the rules that judge the clusters together (k8s-critical-in-one-cluster): the
 * metadata of its workloads (kind, namespace, name, labels, annotations) and of its Namespaces, and
 * whether the workloads could be read whole. Never built for a scan of one cluster or of files.
 *
 * @param clusters every cluster of the run, in the order the run names them, those that could not
 *     be read included (with {@code notRead})
 */
public record FleetWorkloads(List<Cluster> clusters) {
    /** The kinds a cluster's view is made of. */
    public static final Set<String> WORKLOAD_KINDS =
            Set.of("Deployment", "StatefulSet", "DaemonSet");

    public FleetWorkloads {
        clusters = List.copyOf(clusters);
    }

    /**
     * One cluster.
     *
     * @param name the cluster's name (its context, or --cluster-name)
     * @param notRead why its workloads are not all known (the cluster could not be read, or a
     *     workload kind was denied or failed), or null when they were read whole
     * @param workloads the metadata of its Deployments, StatefulSets and DaemonSets
     * @param namespaces the metadata of its Namespaces (empty when they were not read)
     * @param namespacesNotRead why its Namespaces are not known, or null
     */
    public record Cluster(
            String name,
            String notRead,
            List<Meta> workloads,
            List<Meta> namespaces,
            String namespacesNotRead) {
        public Cluster {
            workloads = List.copyOf(workloads);
            namespaces = List.copyOf(namespaces);
        }

        /** A cluster that could not be read at all. */
        public static Cluster unread(String name, String why) {
            return new Cluster(name, why, List.of(), List.of(), why);
        }

        /**
         * The view of a cluster read into {@code inv}, whose read is described by {@code coverage}.
         */
        public static Cluster of(String name, KubeInventory inv, Coverage coverage) {
            List<Meta> ws = new ArrayList<>();
            for (Workload w : inv.workloads()) {
                ws.add(w.meta());
            }
            List<Meta> ns = new ArrayList<>();
            for (Meta m : inv.others()) {
                if ("Namespace".equals(m.kind())) {
                    ns.add(m);
                }
            }
            for (Coverage.Entry e : coverage.entries()) {
                if (e.source().equals("kubernetes")
                        && e.scope().equals("all of kubernetes")
                        && e.status() != Coverage.Status.READ) {
                    String why = "not read: " + e.detail();
                    return new Cluster(name, why, ws, ns, why);
                }
            }
            return new Cluster(
                    name,
                    why(UnreadKinds.whyNotRead(coverage, WORKLOAD_KINDS)),
                    ws,
                    ns,
                    why(UnreadKinds.whyNotRead(coverage, Set.of("Namespace"))));
        }

        /**
         * "Deployment in all namespaces could not be read" out of "not run: it needs Deployment and
         * Deployment in all namespaces could not be read".
         */
        private static String why(String notRun) {
            if (notRun == null) {
                return null;
            }
            String s = notRun.startsWith("not run: it needs ") ? notRun.substring(18) : notRun;
            int and = s.indexOf(" and ");
            return and > 0 && s.indexOf(' ') == and ? s.substring(and + 5) : s;
        }
    }
}
