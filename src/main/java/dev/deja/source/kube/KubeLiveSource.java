package dev.deja.source.kube;

import dev.deja.engine.Coverage;
import dev.deja.engine.InputException;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.kube.ConfigMap;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.KubeScope;
import dev.deja.model.kube.MapTree;
import dev.deja.model.kube.ViewReader;
import dev.deja.source.ListDeadline;
import dev.deja.source.LiveSource;
import dev.deja.source.PageGuard;
import dev.deja.source.Retry;
import dev.deja.source.ScanRequest;
import dev.deja.source.ScanTrace;
import dev.deja.source.SourceUnavailableException;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.http.AsyncBody;
import io.fabric8.kubernetes.client.http.HttpClient;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.HttpResponse;
import java.net.ConnectException;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import tools.jackson.core.JacksonException;

/**
 * Reads a live cluster: Fabric8 resolves the kubeconfig and provides the authenticated JDK HTTP
 * client (tokens, client certificates, exec plugins, token refresh); the lists themselves are plain
 * paged GETs whose JSON is read with Jackson straight into views, which spares the start-up cost of
 * Fabric8's typed model. Lists only the kinds the selected rules need ({@link
 * ScanRequest#kubeKinds}), in every namespace or in each {@code -n} namespace, in pages of {@value
 * #PAGE} ({@code limit} + {@code continue}), all lists in parallel. Each page is turned into views
 * at once, so memory holds the views and one page per list, never the whole objects.
 *
 * <p>Errors: 429 and 5xx are retried as {@link Retry#DEFAULT} says ({@value #ATTEMPTS} attempts,
 * exponential back-off, Retry-After honoured up to 5 s, within the list's deadline); a 403 (or a
 * kind the server does not serve) marks that kind/namespace as not checked in the coverage and the
 * scan goes on; an unreachable server, a TLS failure or rejected credentials (401) make the whole
 * source unavailable, with one line, within the connection timeout.
 */
public final class KubeLiveSource implements LiveSource {
    static final int PAGE = 500;
    static final int ATTEMPTS = Retry.ATTEMPTS;

    /**
     * Most pages read for one list (1,000,000 objects at {@value #PAGE} a page): a server that
     * pages forever is stopped.
     */
    static final int MAX_PAGES = 2_000;

    static final int MAX_PARALLEL = 8;

    /**
     * Pods are listed only to see etcd's members: the static pods kubeadm writes for etcd carry
     * these labels (kubeadm's staticpod.ComponentPod: {@code component: <the container's name>,
     * tier: control-plane}) and their mirror pods live in kube-system, so one filtered list in one
     * namespace reads them, never every pod of the cluster.
     */
    static final String ETCD_NAMESPACE = "kube-system";

    static final String ETCD_PODS = "component=etcd,tier=control-plane";

    /** A kind deja can list and turn into views. */
    record KindInfo(
            String kind,
            String group,
            String version,
            String plural,
            boolean namespaced,
            boolean workload) {
        String apiVersion() {
            return group.isEmpty() ? version : group + "/" + version;
        }
    }

    static final Map<String, KindInfo> KINDS = new LinkedHashMap<>();

    static {
        for (KindInfo k :
                List.of(
                        new KindInfo("Deployment", "apps", "v1", "deployments", true, true),
                        new KindInfo("StatefulSet", "apps", "v1", "statefulsets", true, true),
                        new KindInfo("DaemonSet", "apps", "v1", "daemonsets", true, true),
                        new KindInfo("Service", "", "v1", "services", true, false),
                        new KindInfo("ConfigMap", "", "v1", "configmaps", true, false),
                        new KindInfo("Namespace", "", "v1", "namespaces", false, false),
                        new KindInfo("Pod", "", "v1", "pods", true, false),
                        new KindInfo(
                                "HorizontalPodAutoscaler",
                                "autoscaling",
                                "v2",
                                "horizontalpodautoscalers",
                                true,
                                false),
                        new KindInfo(
                                "PodDisruptionBudget",
                                "policy",
                                "v1",
                                "poddisruptionbudgets",
                                true,
                                false),
                        new KindInfo(
                                "Ingress", "networking.k8s.io", "v1", "ingresses", true, false),
                        new KindInfo(
                                "IngressClass",
                                "networking.k8s.io",
                                "v1",
                                "ingressclasses",
                                false,
                                false),
                        new KindInfo(
                                "NetworkPolicy",
                                "networking.k8s.io",
                                "v1",
                                "networkpolicies",
                                true,
                                false),
                        new KindInfo(
                                "ValidatingWebhookConfiguration",
                                "admissionregistration.k8s.io",
                                "v1",
                                "validatingwebhookconfigurations",
                                false,
                                false),
                        new KindInfo(
                                "ClusterRole",
                                "rbac.authorization.k8s.io",
                                "v1",
                                "clusterroles",
                                false,
                                false),
                        new KindInfo(
                                "ClusterRoleBinding",
                                "rbac.authorization.k8s.io",
                                "v1",
                                "clusterrolebindings",
                                false,
                                false),
                        new KindInfo(
                                "CustomResourceDefinition",
                                "apiextensions.k8s.io",
                                "v1",
                                "customresourcedefinitions",
                                false,
                                false))) {
            KINDS.put(k.kind(), k);
        }
    }

    /**
     * Without -n and -A, the namespace the kubeconfig context sets (as kubectl and Popeye take it),
     * noted in the trace; not in a pod without a kubeconfig (its service account's namespace is
     * where deja runs, not what it is asked to scan). Else the request as it is: every namespace.
     */
    static ScanRequest withContextNamespace(ScanRequest req, Config cfg, ScanTrace trace) {
        String ns = cfg.getNamespace();
        if (!req.namespaces.isEmpty()
                || req.allNamespaces
                || cfg.getCurrentContext() == null
                || ns == null
                || ns.isBlank()) {
            return req;
        }
        ScanRequest.Builder narrowed = req.toBuilder();
        narrowed.namespaces = List.of(ns.strip());
        trace.contextNamespace = ns.strip();
        return narrowed.build();
    }

    /** One list call: a kind in one namespace (null: all namespaces, or a cluster-scoped kind). */
    record Task(KindInfo kind, String namespace) {
        String scope() {
            if (!kind.namespaced()) {
                return kind.kind() + " (cluster-scoped)";
            }
            return kind.kind()
                    + (namespace == null ? " in all namespaces" : " in namespace " + namespace);
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
    public void collect(ScanRequest asked, SnapshotBuilder out, ScanTrace trace) {
        Config cfg = KubeClients.config(asked);
        String server = cfg.getMasterUrl();
        String context =
                cfg.getCurrentContext() == null ? "in-cluster" : cfg.getCurrentContext().getName();
        trace.clusterRead = "context " + context + " (" + server + ")";
        ScanRequest req = withContextNamespace(asked, cfg, trace);
        KubeInventory.Builder inv =
                out.builder(KubeInventory.Builder.class, KubeInventory.Builder::new);
        if (req.selector != null && !req.selector.isBlank()) {
            out.put(KubeScope.class, new KubeScope(req.selector.strip()));
        }
        List<Task> tasks = tasks(req, out);
        if (tasks.isEmpty()) {
            out.notRead(
                    "kubernetes",
                    "cluster",
                    Coverage.Status.SKIPPED,
                    "no selected rule reads Kubernetes objects");
            return;
        }
        if (req.verbose) {
            req.err.println(
                    "deja: kubernetes: context "
                            + context
                            + ", server "
                            + server
                            + ", listing "
                            + tasks.stream().map(Task::scope).toList());
        }
        HttpClient client = httpClient(cfg, context, server);
        try (HttpClient http = client) {
            tasks = withoutMissingNamespaces(http, server, context, tasks, req, out);
            if (tasks.isEmpty()) {
                return;
            }
            runAll(http, server, tasks, req, inv, out, context);
        }
    }

    /**
     * The list calls of the kinds the selected rules read, in kind order: one per namespace given
     * with -n, else one for all; a kind deja has no reader for is a coverage entry.
     */
    private static List<Task> tasks(ScanRequest req, SnapshotBuilder out) {
        List<Task> tasks = new ArrayList<>();
        for (String kind : new TreeSet<>(req.kubeKinds)) {
            KindInfo k = KINDS.get(kind);
            if (k == null) {
                out.notRead(
                        "kubernetes",
                        kind,
                        Coverage.Status.SKIPPED,
                        "deja has no reader for this kind");
                continue;
            }
            if (k.kind().equals("Pod")) { // only etcd's static pods: one namespace, one selector
                if (req.namespaces.isEmpty() || req.namespaces.contains(ETCD_NAMESPACE)) {
                    tasks.add(new Task(k, ETCD_NAMESPACE));
                } else {
                    out.notRead(
                            "kubernetes",
                            "Pod in namespace " + ETCD_NAMESPACE,
                            Coverage.Status.SKIPPED,
                            "not listed: the namespaces to scan (-n) leave out "
                                    + ETCD_NAMESPACE
                                    + ", where kubeadm runs etcd's static pods ("
                                    + ETCD_PODS
                                    + ")");
                }
            } else if (!k.namespaced() || req.namespaces.isEmpty()) {
                tasks.add(new Task(k, null));
            } else {
                for (String ns : new TreeSet<>(req.namespaces)) {
                    tasks.add(new Task(k, ns));
                }
            }
        }
        return tasks;
    }

    /** The kubeconfig's HTTP client; TLS material it cannot use is an input error. */
    private static HttpClient httpClient(Config cfg, String context, String server) {
        try {
            return KubeClients.httpClient(cfg);
        } catch (
                RuntimeException
                        e) { // TLS material Fabric8 could not use (a certificate that does not
            // parse, ...)
            throw new InputException(
                    "context "
                            + context
                            + ": cannot set up the connection to "
                            + server
                            + " from the kubeconfig: "
                            + KubeClients.rootMessage(e));
        }
    }

    /**
     * Runs the list calls, at most {@value #MAX_PARALLEL} at a time, and waits for all; one that
     * finds the server unusable ends the source.
     */
    private static void runAll(
            HttpClient http,
            String server,
            List<Task> tasks,
            ScanRequest req,
            KubeInventory.Builder inv,
            SnapshotBuilder out,
            String context) {
        ExecutorService pool =
                Executors.newFixedThreadPool(
                        Math.min(MAX_PARALLEL, tasks.size()),
                        r -> {
                            Thread t = new Thread(r, "deja-kube-list");
                            t.setDaemon(true);
                            return t;
                        });
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (Task t : tasks) {
                futures.add(pool.submit(() -> run(http, server, t, req, inv, out, context)));
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

    /**
     * A namespace given with {@code -n} that does not exist (404 on {@code GET
     * /api/v1/namespaces/NAME}) is a coverage entry that fails the scan (exit 3), and its lists are
     * not run: listing in a missing namespace answers an empty list, so a typo would read as
     * "nothing to report". When the answer is not 200 or 404 (no {@code get} on namespaces: 403),
     * deja cannot tell and lists as asked (saying so with --verbose).
     */
    static List<Task> withoutMissingNamespaces(
            HttpClient http,
            String server,
            String context,
            List<Task> tasks,
            ScanRequest req,
            SnapshotBuilder out) {
        if (req.namespaces.isEmpty()) {
            return tasks;
        }
        String base =
                (server.endsWith("/") ? server.substring(0, server.length() - 1) : server)
                        + "/api/v1/namespaces/";
        Map<String, CompletableFuture<Answer>> asked = new LinkedHashMap<>();
        for (String ns : new TreeSet<>(req.namespaces)) {
            asked.put(ns, send(http, base + enc(ns)));
        }
        Set<String> missing = new TreeSet<>();
        for (Map.Entry<String, CompletableFuture<Answer>> e : asked.entrySet()) {
            int code;
            try {
                code = e.getValue().get(KubeClients.AWAIT_MS, TimeUnit.MILLISECONDS).code();
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
                throw new SourceUnavailableException("kubernetes", "interrupted");
            } catch (ExecutionException | TimeoutException | RuntimeException x) {
                continue; // the lists will say what is wrong with the server
            }
            if (code == 404) {
                missing.add(e.getKey());
                out.notRead(
                        "kubernetes",
                        "namespace " + e.getKey(),
                        Coverage.Status.FAILED,
                        "namespace "
                                + e.getKey()
                                + " does not exist in context "
                                + context
                                + " (404): nothing in it was read (a typo in -n?)");
            } else if (code != 200 && req.verbose) {
                req.err.println(
                        "deja: kubernetes: cannot tell whether namespace "
                                + e.getKey()
                                + " exists (HTTP "
                                + code
                                + " on get namespaces/"
                                + e.getKey()
                                + "); listing in it as asked");
            }
        }
        if (missing.isEmpty()) {
            return tasks;
        }
        return tasks.stream()
                .filter(t -> t.namespace() == null || !missing.contains(t.namespace()))
                .toList();
    }

    /**
     * What one list call's reads share: the client, the task, where it goes (for messages), the
     * ConfigMap keys kept (null: all), and when the list must have ended ({@link System#nanoTime}).
     */
    private record ListCall(
            HttpClient http,
            Task t,
            String server,
            String context,
            int connectMs,
            Set<String> named,
            long deadline,
            Map<String, String> env) {}

    private static void run(
            HttpClient http,
            String server,
            Task t,
            ScanRequest req,
            KubeInventory.Builder inv,
            SnapshotBuilder out,
            String context) {
        KindInfo k = t.kind();
        String base = listUrl(server, t);
        String selector =
                k.kind().equals("Pod")
                        ? "labelSelector=" + enc(ETCD_PODS)
                        : req.selector != null && !req.selector.isBlank() && k.workload()
                                ? "labelSelector=" + enc(req.selector)
                                : null;
        String paged = base + "?limit=" + PAGE + (selector == null ? "" : "&" + selector);
        String whole = base + (selector == null ? "" : "?" + selector);
        // a saved snapshot keeps all ConfigMap data: a later offline scan may name other ConfigMaps
        // in deja.yaml
        Set<String> named = req.snapshotOut != null ? null : Set.copyOf(req.haproxyConfigMaps);
        long started = System.nanoTime();
        long deadline =
                started
                        + ListDeadline.millis(req.processEnv)
                                * 1_000_000L; // for this list, 410 retry included
        ListCall call =
                new ListCall(
                        http, t, server, context, connectMs(req), named, deadline, req.processEnv);
        List<Object> views = new ArrayList<>();
        // the objects as the API returns them, for rules of one's own that read them so
        boolean keepRaw = req.kubeRawKinds.contains(k.kind());
        KubeRaw.Builder raw;
        try {
            raw = listWhole(call, paged, whole, req, views, keepRaw);
        } catch (Expired e) { // the server paged the whole list as well, and let that token expire
            // too
            out.notRead(
                    "kubernetes",
                    t.scope(),
                    Coverage.Status.FAILED,
                    "410 Gone: the list's continue token expired"
                            + " again when it was read whole (the list changes faster than it can be read)");
            return;
        } catch (Denied d) {
            out.notRead("kubernetes", t.scope(), d.status, d.getMessage());
            return;
        }
        // a kind goes into the snapshot whole or not at all: rules never see half a list
        for (Object view : views) {
            inv.add(view);
            AnnotationSuppressions.record(ManifestLoader.metaOf(view), req, out);
        }
        if (raw != null) {
            out.builder(KubeRaw.Builder.class, KubeRaw.Builder::new).addAll(raw);
        }
        out.read("kubernetes", t.scope(), views.size());
        req.progress.read("kubernetes", t.scope(), views.size());
        if (req.verbose) {
            req.err.println(
                    "deja: kubernetes: "
                            + t.scope()
                            + ": "
                            + views.size()
                            + " objects in "
                            + (System.nanoTime() - started) / 1_000_000
                            + " ms");
        }
    }

    /** The list's URL without query: the kind's API path, in the task's namespace if it has one. */
    private static String listUrl(String server, Task t) {
        KindInfo k = t.kind();
        StringBuilder base =
                new StringBuilder(
                        server.endsWith("/") ? server.substring(0, server.length() - 1) : server);
        base.append(
                k.group().isEmpty()
                        ? "/api/" + k.version()
                        : "/apis/" + k.group() + "/" + k.version());
        if (k.namespaced() && t.namespace() != null) {
            base.append("/namespaces/").append(enc(t.namespace()));
        }
        base.append('/').append(k.plural());
        return base.toString();
    }

    /**
     * The list in pages into {@code views}, or whole when a continue token expires (410); returns
     * the raw objects kept (null unless {@code keepRaw}).
     */
    private static KubeRaw.Builder listWhole(
            ListCall call,
            String paged,
            String whole,
            ScanRequest req,
            List<Object> views,
            boolean keepRaw)
            throws Denied, Expired {
        KubeRaw.Builder raw = keepRaw ? new KubeRaw.Builder() : null;
        try {
            list(call, paged, views, raw);
        } catch (Expired e) {
            // as client-go's pager does: the token is too old, so the whole list in one answer,
            // without limit
            if (req.verbose) {
                req.err.println(
                        "deja: kubernetes: "
                                + call.t().scope()
                                + ": continue token expired (410), listing whole");
            }
            views.clear();
            raw = keepRaw ? new KubeRaw.Builder() : null;
            list(call, whole, views, raw);
        }
        return raw;
    }

    /**
     * Every page of one list into {@code views}; the next page is requested before this one is
     * parsed.
     */
    private static void list(ListCall call, String base, List<Object> views, KubeRaw.Builder raw)
            throws Denied, Expired {
        KindInfo k = call.t().kind();
        Set<String> named = call.named();
        HttpClient http = call.http();
        String url = base;
        CompletableFuture<Answer> sent = send(http, url);
        // the list's deadline is checked before each page, below
        PageGuard tokens =
                new PageGuard("the API server", "continue token", MAX_PAGES, "pages of " + PAGE, 0);
        int pages = 0;
        while (sent != null) {
            pages++;
            if (System.nanoTime() - call.deadline() > 0) {
                sent.cancel(true);
                throw new Denied(
                        Coverage.Status.FAILED,
                        "the list did not end within "
                                + ListDeadline.describe(call.env())
                                + " ("
                                + (pages - 1)
                                + " pages read); stopped, nothing of it used");
            }
            Chunks body = page(call, url, sent);
            checkJsonObject(body);
            String[] next = {null};
            CompletableFuture<Answer>[] nextSent = newFutureSlot();
            try {
                int page = pages;
                ListPageParser.parse(
                        body,
                        token -> {
                            next[0] = nextUrl(base, token, tokens, page);
                            nextSent[0] = send(http, next[0]);
                        },
                        item -> addItem(item, k, named, views, raw),
                        raw != null);
            } catch (Endless e) {
                throw new Denied(Coverage.Status.FAILED, e.getMessage());
            } catch (JacksonException | IllegalArgumentException e) {
                if (nextSent[0] != null) {
                    nextSent[0].cancel(true);
                }
                throw new Denied(
                        Coverage.Status.FAILED,
                        "the server's answer is not a JSON list: "
                                + (e instanceof JacksonException je
                                        ? plain(je.getOriginalMessage())
                                        : e.getMessage()));
            }
            url = next[0];
            sent = nextSent[0];
        }
    }

    /** A page's body starts with a JSON object (after white space): not HTML, not other text. */
    private static void checkJsonObject(Chunks body) throws Denied {
        int first = body.firstNonWhitespace();
        if (first != '{') {
            throw new Denied(
                    Coverage.Status.FAILED,
                    "the server answered "
                            + (first == '<' ? "HTML" : "something other than JSON")
                            + ", not a Kubernetes list (is the kubeconfig's server"
                            + " the API server itself, not a web page, proxy or login page?)");
        }
    }

    /**
     * The URL of the page after page {@code page}, whose continue token is {@code token}; {@link
     * Endless} on a token seen before or past {@link #MAX_PAGES}.
     */
    private static String nextUrl(String base, String token, PageGuard guard, int page) {
        PageGuard.Stop stop = guard.stop(token, page);
        if (stop != null) {
            throw new Endless(
                    stop.message()
                            + (stop.kind() == PageGuard.Kind.TOO_MANY
                                    ? ": stopped, nothing of it used (does the server page forever?)"
                                    : "; stopped, nothing of it used"));
        }
        return base + (base.contains("?") ? "&" : "?") + "continue=" + enc(token);
    }

    /** One object of a page: its view into {@code views}, and as the API returned it into raw. */
    private static void addItem(
            Map<String, Object> item,
            KindInfo k,
            Set<String> named,
            List<Object> views,
            KubeRaw.Builder raw) {
        Map<String, Object> whole = null;
        KubeRaw.TooLarge tooLarge = null;
        if (raw != null) {
            // before the pruning below: the object as the API returned it
            try {
                whole = RawObjects.frozen(item, k.kind(), k.apiVersion());
            } catch (KubeRaw.TooLarge e) {
                tooLarge = e;
            }
        }
        if (named != null && k.kind().equals("ConfigMap")) {
            pruneConfigMapData(item, named);
        }
        Object view = ViewReader.read(new MapTree(item).withKind(k.kind(), k.apiVersion()), null);
        views.add(view);
        if (whole != null) {
            raw.add(ManifestLoader.metaOf(view), whole);
        } else if (tooLarge != null) {
            raw.refuse(ManifestLoader.metaOf(view), KubeRaw.tooLarge(tooLarge));
        }
    }

    /**
     * A parser message without Jackson's note on where a redacted source was ("[Source: REDACTED
     * ...]").
     */
    static String plain(String jacksonMessage) {
        return String.valueOf(jacksonMessage)
                .replaceAll("\\s*\\(?(start marker )?at \\[Source: REDACTED[^\\]]*\\]\\)?", "")
                .replaceAll("\\s+", " ")
                .strip();
    }

    /**
     * A list that would not end: a repeated continue token, or more pages than {@link #MAX_PAGES}.
     */
    static final class Endless extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Endless(String m) {
            super(m, null, false, false);
        }
    }

    /**
     * A continue token the server no longer knows (410 Gone): the list must be read again from its
     * start.
     */
    static final class Expired extends Exception {
        private static final long serialVersionUID = 1L;
    }

    /** Drops the data values no rule reads ({@link ConfigMap#keptLive}) before the view is made. */
    @SuppressWarnings("unchecked")
    static void pruneConfigMapData(Map<String, Object> item, Set<String> named) {
        if (!(item.get("metadata") instanceof Map<?, ?> md)
                || !(item.get("data") instanceof Map<?, ?> data)) {
            return;
        }
        String ns = String.valueOf(md.get("namespace"));
        String name = String.valueOf(md.get("name"));
        ((Map<String, Object>) data)
                .keySet()
                .removeIf(key -> !ConfigMap.keptLive(ns, name, key, named));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
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

    // Java cannot create an array of a generic type: a raw array, cast
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static CompletableFuture<Answer>[] newFutureSlot() {
        return new CompletableFuture[1];
    }

    /**
     * Most bytes read of one answer of the API server (a page of {@value #PAGE} objects); tests
     * lower it.
     */
    static volatile int maxResponseBytes = 128 << 20;

    /**
     * An answer: status, headers, and its body read up to {@link #maxResponseBytes} ({@code over}
     * when cut), as the chunks it came in.
     */
    record Answer(int code, Chunks content, HttpResponse<?> head, boolean over) {
        String header(String name) {
            return head.header(name);
        }

        /** The body in one array (a copy: for small answers). */
        byte[] body() {
            return content.bytes();
        }
    }

    /**
     * Collects a body chunk by chunk and cancels it past the cap: memory never holds more than the
     * cap.
     */
    private static final class CappedBody implements AsyncBody.Consumer<List<ByteBuffer>> {
        final List<byte[]> chunks = new ArrayList<>();
        long size;
        volatile boolean over;

        @Override
        public synchronized void consume(List<ByteBuffer> buffers, AsyncBody body) {
            for (ByteBuffer b : buffers) {
                size += b.remaining();
                if (size > maxResponseBytes) {
                    over = true;
                    chunks.clear();
                    body.cancel();
                    return;
                }
                byte[] c = new byte[b.remaining()];
                b.get(c);
                chunks.add(c);
            }
            body.consume();
        }

        synchronized Chunks content() {
            Chunks c = new Chunks(chunks, size);
            chunks.clear();
            return c;
        }
    }

    private static CompletableFuture<Answer> send(HttpClient http, String url) {
        return send(http, url, "application/json", KubeClients.REQUEST_TIMEOUT_MS);
    }

    /**
     * A GET with this Accept header and request timeout, its body capped at {@link
     * #maxResponseBytes}.
     */
    static CompletableFuture<Answer> send(
            HttpClient http, String url, String accept, long timeoutMillis) {
        HttpRequest request =
                http.newHttpRequestBuilder()
                        .uri(url)
                        .header("Accept", accept)
                        .timeout(timeoutMillis, TimeUnit.MILLISECONDS)
                        .build();
        CappedBody sink = new CappedBody();
        return http.consumeBytes(request, sink)
                .thenCompose(
                        resp -> {
                            resp.body().consume();
                            return resp.body()
                                    .done()
                                    .handle(
                                            (v, ex) -> {
                                                if (sink.over) {
                                                    return new Answer(
                                                            resp.code(), Chunks.EMPTY, resp, true);
                                                }
                                                if (ex != null) {
                                                    throw ex instanceof CompletionException ce
                                                            ? ce
                                                            : new CompletionException(ex);
                                                }
                                                return new Answer(
                                                        resp.code(), sink.content(), resp, false);
                                            });
                        });
    }

    /**
     * The body of a page (200), retrying 429 and 5xx ({@link Retry#DEFAULT}, within the list's
     * deadline); {@code sent} is the first attempt, already on its way.
     */
    private static Chunks page(ListCall call, String url, CompletableFuture<Answer> sent)
            throws Denied, Expired {
        Retry.Attempts tries = Retry.DEFAULT.start(call.deadline());
        for (CompletableFuture<Answer> first = sent; ; first = null) {
            Answer resp = await(call, first, url);
            int code = resp.code();
            if (resp.over()) {
                throw new Denied(
                        Coverage.Status.FAILED,
                        "an answer of the API server was larger than "
                                + (maxResponseBytes >> 20)
                                + " MiB (the most deja reads in one answer): not read");
            }
            if (code == 200) {
                return resp.content();
            }
            String why = statusMessage(resp.body());
            refuse(call, url, resp);
            if (Retry.retryable(code) && again(tries, resp)) {
                continue;
            }
            throw new Denied(
                    Coverage.Status.FAILED,
                    "HTTP "
                            + code
                            + (Retry.retryable(code) ? " after " + tries.made() + " attempts" : "")
                            + (why == null ? "" : ": " + why));
        }
    }

    /** Waits for one more attempt (honouring the answer's Retry-After); false when none is left. */
    private static boolean again(Retry.Attempts tries, Answer resp) {
        try {
            return tries.again(resp.header("Retry-After"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted");
        }
    }

    /**
     * The answer to {@code sent}, or to a new GET of {@code url} when it is null; the server not
     * answering makes the source unavailable.
     */
    private static Answer await(ListCall call, CompletableFuture<Answer> sent, String url) {
        try {
            CompletableFuture<Answer> f = sent != null ? sent : send(call.http(), url);
            return f.get(KubeClients.AWAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted");
        } catch (TimeoutException e) {
            throw new Unavailable(
                    "the API server "
                            + call.server()
                            + " (context "
                            + call.context()
                            + ") did not answer within "
                            + KubeClients.REQUEST_TIMEOUT_MS / 1000
                            + "s");
        } catch (ExecutionException | RuntimeException e) {
            throw new Unavailable(transport(e, call.server(), call.context(), call.connectMs()));
        }
    }

    /**
     * The answers that are not retried: 403 (this list not read), 401 (the source unavailable), a
     * redirect, 410 on a continue token, 404; returns on the others.
     */
    private static void refuse(ListCall call, String url, Answer resp) throws Denied, Expired {
        int code = resp.code();
        Task t = call.t();
        KindInfo k = t.kind();
        String context = call.context();
        if (code == 403) {
            throw new Denied(
                    Coverage.Status.DENIED,
                    "403 Forbidden: the credentials of context "
                            + context
                            + " may not list "
                            + k.plural()
                            + (t.namespace() == null ? "" : " in " + t.namespace())
                            + " (RBAC: get/list on "
                            + k.plural()
                            + "."
                            + (k.group().isEmpty() ? "core" : k.group())
                            + ")");
        }
        if (code == 401) {
            throw new Unavailable(
                    "the API server "
                            + call.server()
                            + " rejected the credentials of context "
                            + context
                            + " (401 Unauthorized)");
        }
        if (code >= 300 && code < 400) {
            String to = resp.header("Location");
            throw new Denied(
                    Coverage.Status.FAILED,
                    "the API server answered HTTP "
                            + code
                            + " (a redirect"
                            + (to == null ? "" : " to " + to)
                            + "); deja does not follow redirects, which would carry the"
                            + " credentials of context "
                            + context
                            + " elsewhere: point the kubeconfig at the API server itself");
        }
        if (code == 410 && url.contains("continue=")) {
            throw new Expired();
        }
        if (code == 404) {
            throw new Denied(
                    Coverage.Status.FAILED,
                    "404: the server does not serve " + k.apiVersion() + " " + k.plural());
        }
    }

    static String statusMessage(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        String m = ListPageParser.topLevelString(body, "message");
        if (m == null) {
            return null;
        }
        String first =
                m.lines()
                        .findFirst()
                        .orElse(m)
                        .replaceAll("\\p{Cntrl}", "?"); // echoed server text: bounded
        return first.length() <= 300 ? first : first.substring(0, 297) + "...";
    }

    /** One line for a failure to talk to the server at all. */
    static String transport(Throwable e, String server, String context, int connectMs) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return "cannot reach the API server "
                        + server
                        + " (context "
                        + context
                        + "): connection timed out after "
                        + connectMs / 1000
                        + "s";
            }
            if (t instanceof HttpTimeoutException) {
                return "the API server "
                        + server
                        + " (context "
                        + context
                        + ") did not answer within "
                        + KubeClients.REQUEST_TIMEOUT_MS / 1000
                        + "s";
            }
            if (t instanceof ConnectException) {
                return "cannot reach the API server "
                        + server
                        + " (context "
                        + context
                        + "): connection refused";
            }
            if (t instanceof UnknownHostException) {
                return "cannot reach the API server "
                        + server
                        + " (context "
                        + context
                        + "): unknown host "
                        + t.getMessage();
            }
            if (t instanceof SSLException) {
                String m = String.valueOf(t.getMessage());
                if (m.contains("PKIX path building failed")
                        || m.contains("unable to find valid certification path")) {
                    return "TLS with the API server "
                            + server
                            + " (context "
                            + context
                            + ") failed: its certificate"
                            + " is not signed by the kubeconfig's certificate-authority (nor by a CA this Java trusts)";
                }
                if (m.contains("No subject alternative")) {
                    return "TLS with the API server "
                            + server
                            + " (context "
                            + context
                            + ") failed: its certificate"
                            + " is not for this host name ("
                            + m
                            + ")";
                }
                return "TLS with the API server "
                        + server
                        + " (context "
                        + context
                        + ") failed: "
                        + m;
            }
        }
        return "cannot use the API server "
                + server
                + " (context "
                + context
                + "): "
                + KubeClients.rootMessage(e);
    }

    private static int connectMs(ScanRequest req) {
        return KubeClients.connectTimeoutMs(req.processEnv == null ? Map.of() : req.processEnv);
    }
}
