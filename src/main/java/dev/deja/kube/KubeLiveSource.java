package dev.deja.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.kube.model.KubeInventory;
import dev.deja.source.LiveSource;
import dev.deja.source.ScanRequest;
import dev.deja.source.SourceUnavailableException;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.MixedOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.net.ssl.SSLException;

/**
 * Reads a live cluster with Fabric8 (JDK HTTP client): lists only the kinds the selected rules need
 * ({@link ScanRequest#kubeKinds}), in every namespace or in each {@code -n} namespace, in pages of {@value #PAGE}
 * ({@code limit} + {@code continue}), all lists in parallel. Each page is turned into views at once, so memory holds
 * the views and one page per list, never the whole objects.
 *
 * <p>Errors: 429 and 5xx are retried with exponential back-off ({@value #ATTEMPTS} attempts); a 403 (or a kind the
 * server does not serve) marks that kind/namespace as not checked in the coverage and the scan goes on; an
 * unreachable server, a TLS failure or rejected credentials (401) make the whole source unavailable, with one line,
 * within the connection timeout.
 */
public final class KubeLiveSource implements LiveSource {
    static final int PAGE = 500;
    static final int ATTEMPTS = 4;
    static final long BACKOFF_MS = 250;
    static final int MAX_PARALLEL = 8;

    /** A kind deja can list and turn into views. */
    record KindInfo(String kind, String group, String version, String plural, boolean namespaced, boolean workload) {
        String apiVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }

        ResourceDefinitionContext context() {
            return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withPlural(plural)
                    .withKind(kind).withNamespaced(namespaced).build();
        }
    }

    static final Map<String, KindInfo> KINDS = new LinkedHashMap<>();

    static {
        for (KindInfo k : List.of(
                new KindInfo("Deployment", "apps", "v1", "deployments", true, true),
                new KindInfo("StatefulSet", "apps", "v1", "statefulsets", true, true),
                new KindInfo("DaemonSet", "apps", "v1", "daemonsets", true, true),
                new KindInfo("Service", "", "v1", "services", true, false),
                new KindInfo("ConfigMap", "", "v1", "configmaps", true, false),
                new KindInfo("HorizontalPodAutoscaler", "autoscaling", "v2", "horizontalpodautoscalers", true, false),
                new KindInfo("PodDisruptionBudget", "policy", "v1", "poddisruptionbudgets", true, false),
                new KindInfo("Ingress", "networking.k8s.io", "v1", "ingresses", true, false),
                new KindInfo("IngressClass", "networking.k8s.io", "v1", "ingressclasses", false, false))) {
            KINDS.put(k.kind(), k);
        }
    }

    /** One list call: a kind in one namespace (null: all namespaces, or a cluster-scoped kind). */
    record Task(KindInfo kind, String namespace) {
        String scope() {
            if (!kind.namespaced()) {
                return kind.kind() + " (cluster-scoped)";
            }
            return kind.kind() + (namespace == null ? " in all namespaces" : " in namespace " + namespace);
        }
    }

    /** The whole source cannot be used. */
    static final class Unavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unavailable(String m) {
            super(m);
        }
    }

    @Override
    public void collect(ScanRequest req, SnapshotBuilder out) {
        Config cfg = KubeClients.config(req);
        String server = cfg.getMasterUrl();
        String context = cfg.getCurrentContext() == null ? "in-cluster" : cfg.getCurrentContext().getName();
        KubeInventory.Builder inv = out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new);
        List<Task> tasks = new ArrayList<>();
        for (String kind : new TreeSet<>(req.kubeKinds)) {
            KindInfo k = KINDS.get(kind);
            if (k == null) {
                out.notRead("kubernetes", kind, Coverage.Status.SKIPPED, "deja has no reader for this kind");
                continue;
            }
            if (!k.namespaced() || req.namespaces.isEmpty()) {
                tasks.add(new Task(k, null));
            } else {
                for (String ns : new TreeSet<>(req.namespaces)) {
                    tasks.add(new Task(k, ns));
                }
            }
        }
        if (tasks.isEmpty()) {
            return;
        }
        if (req.verbose) {
            req.err.println("deja: kubernetes: context " + context + ", server " + server + ", listing "
                    + tasks.stream().map(Task::scope).toList());
        }
        try (KubernetesClient client = KubeClients.create(cfg)) {
            ExecutorService pool = Executors.newFixedThreadPool(Math.min(MAX_PARALLEL, tasks.size()), r -> {
                Thread t = new Thread(r, "deja-kube-list");
                t.setDaemon(true);
                return t;
            });
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (Task t : tasks) {
                    futures.add(pool.submit(() -> run(client, t, req, inv, out, server, context)));
                }
                for (Future<?> f : futures) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        if (e.getCause() instanceof Unavailable u) {
                            throw new SourceUnavailableException("kubernetes", u.getMessage());
                        }
                        if (e.getCause() instanceof RuntimeException re) {
                            throw re;
                        }
                        throw new IllegalStateException(e.getCause());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new SourceUnavailableException("kubernetes", "interrupted");
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    private static void run(KubernetesClient client, Task t, ScanRequest req, KubeInventory.Builder inv,
                            SnapshotBuilder out, String server, String context) {
        MixedOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> op =
                client.genericKubernetesResources(t.kind().context());
        FilterWatchListDeletable<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> list =
                !t.kind().namespaced() ? op : t.namespace() == null ? op.inAnyNamespace() : op.inNamespace(t.namespace());
        if (req.selector != null && !req.selector.isBlank() && t.kind().workload()) {
            list = list.withLabelSelector(req.selector);
        }
        String token = null;
        long count = 0;
        do {
            GenericKubernetesResourceList page;
            try {
                page = page(list, token, t, server, context);
            } catch (Denied d) {
                out.notRead("kubernetes", t.scope(), d.status, d.getMessage());
                return;
            }
            for (GenericKubernetesResource r : page.getItems()) {
                Object view = ViewReader.read(MapTree.of(asMap(r, t.kind())), null);
                inv.add(view);
                AnnotationSuppressions.record(ManifestLoader.metaOf(view), req, out);
                count++;
            }
            token = page.getMetadata() == null ? null : page.getMetadata().getContinue();
        } while (token != null && !token.isEmpty());
        out.read("kubernetes", t.scope(), count);
    }

    /** Not readable, but the rest of the scan goes on. */
    static final class Denied extends Exception {
        private static final long serialVersionUID = 1L;
        final Coverage.Status status;

        Denied(Coverage.Status status, String m) {
            super(m);
            this.status = status;
        }
    }

    private static GenericKubernetesResourceList page(
            FilterWatchListDeletable<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> list,
            String token, Task t, String server, String context) throws Denied {
        long backoff = BACKOFF_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                return list.list(new ListOptionsBuilder().withLimit((long) PAGE).withContinue(token).build());
            } catch (KubernetesClientException e) {
                int code = e.getCode();
                if (code == 403) {
                    throw new Denied(Coverage.Status.DENIED, "403 Forbidden: the credentials of context " + context
                            + " may not list " + t.kind().plural() + (t.namespace() == null ? "" : " in " + t.namespace())
                            + " (RBAC: get/list on " + t.kind().plural() + "." + (t.kind().group().isEmpty() ? "core"
                            : t.kind().group()) + ")");
                }
                if (code == 401) {
                    throw new Unavailable("the API server " + server + " rejected the credentials of context " + context
                            + " (401 Unauthorized)");
                }
                if (code == 404) {
                    throw new Denied(Coverage.Status.FAILED, "404: the server does not serve " + t.kind().apiVersion()
                            + " " + t.kind().plural());
                }
                if (code == 429 || code >= 500) {
                    if (attempt >= ATTEMPTS) {
                        throw new Denied(Coverage.Status.FAILED, "HTTP " + code + " after " + ATTEMPTS + " attempts"
                                + (code == 429 ? " (throttled)" : ""));
                    }
                    sleep(backoff);
                    backoff *= 2;
                    continue;
                }
                if (code > 0) {
                    throw new Denied(Coverage.Status.FAILED, "HTTP " + code + ": " + KubeClients.rootMessage(e));
                }
                throw new Unavailable(transport(e, server, context));
            } catch (RuntimeException e) {
                throw new Unavailable(transport(e, server, context));
            }
        }
    }

    /** One line for a failure to talk to the server at all. */
    static String transport(Throwable e, String server, String context) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return "cannot reach the API server " + server + " (context " + context + "): connection timed out after "
                        + KubeClients.CONNECT_TIMEOUT_MS / 1000 + "s";
            }
            if (t instanceof HttpTimeoutException) {
                return "the API server " + server + " (context " + context + ") did not answer within "
                        + KubeClients.REQUEST_TIMEOUT_MS / 1000 + "s";
            }
            if (t instanceof ConnectException) {
                return "cannot reach the API server " + server + " (context " + context + "): connection refused";
            }
            if (t instanceof UnknownHostException) {
                return "cannot reach the API server " + server + " (context " + context + "): unknown host "
                        + t.getMessage();
            }
            if (t instanceof SSLException) {
                return "TLS with the API server " + server + " (context " + context + ") failed: " + t.getMessage();
            }
        }
        return "cannot use the API server " + server + " (context " + context + "): " + KubeClients.rootMessage(e);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted");
        }
    }

    /** The object as the plain tree {@link ViewReader} reads (metadata from the typed ObjectMeta, the rest as is). */
    static Map<String, Object> asMap(GenericKubernetesResource r, KindInfo k) {
        Map<String, Object> m = new LinkedHashMap<>(r.getAdditionalProperties());
        m.put("apiVersion", r.getApiVersion() != null ? r.getApiVersion() : k.apiVersion());
        m.put("kind", k.kind());
        ObjectMeta md = r.getMetadata();
        Map<String, Object> meta = new LinkedHashMap<>();
        if (md != null) {
            meta.put("name", md.getName());
            meta.put("namespace", md.getNamespace());
            if (md.getLabels() != null) {
                meta.put("labels", md.getLabels());
            }
            if (md.getAnnotations() != null) {
                Map<String, String> a = new LinkedHashMap<>(md.getAnnotations());
                a.remove("kubectl.kubernetes.io/last-applied-configuration"); // a copy of the whole object
                meta.put("annotations", a);
            }
        }
        m.put("metadata", meta);
        return m;
    }
}
