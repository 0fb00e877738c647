package dev.deja.rules.cel;

import dev.cel.common.CelFunctionDecl;
import dev.cel.common.CelOverloadDecl;
import dev.cel.common.types.CelType;
import dev.cel.common.types.ListType;
import dev.cel.common.types.SimpleType;
import dev.cel.runtime.CelFunctionBinding;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.NlbViews;
import dev.deja.model.aws.TargetGroupView;
import dev.deja.model.haproxy.Directive;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.Section;
import dev.deja.model.haproxy.Times;
import dev.deja.model.kube.Hpa;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.LoadBalancers;
import dev.deja.model.kube.Pdb;
import dev.deja.model.kube.Selector;
import dev.deja.model.kube.Service;
import dev.deja.model.kube.Workload;
import dev.deja.rules.kube.LbNoDisruptionHeadroom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The functions a rule's expressions may call, each a thin binding to the model's own view (the
 * same code the Java rules call): documented in docs/writing-rules.md. They read the snapshot being
 * judged through {@link #CURRENT}, set by {@link CelRule} around each evaluation on its thread.
 */
final class Functions {
    private Functions() {}

    /**
     * What the functions read: the snapshot and, for a HAProxy rule, the configuration judged;
     * {@code found} keeps the snapshot's {@link Memo} once found (the context is its thread's).
     */
    record Context(Snapshot snapshot, HaproxyConfig config, Memo[] found) {
        Context(Snapshot snapshot, HaproxyConfig config) {
            this(snapshot, config, new Memo[1]);
        }

        Memo memo() {
            Memo m = found[0];
            if (m == null) {
                m = snapshot.derived(Memo.class, Memo::new);
                found[0] = m;
            }
            return m;
        }
    }

    static final ThreadLocal<Context> CURRENT = new ThreadLocal<>();

    private static final CelType DYN = SimpleType.DYN;
    private static final CelType LIST = ListType.create(SimpleType.DYN);

    /** Name, result, arguments, and what it does (a model call). */
    private record Fn(String name, CelType result, List<CelType> args, Impl impl) {}

    @FunctionalInterface
    private interface Impl {
        Object apply(Object[] args);
    }

    private static final List<Fn> ALL =
            List.of(
                    // Kubernetes
                    new Fn(
                            "isLoadBalancer",
                            SimpleType.BOOL,
                            List.of(DYN),
                            a -> lb(a[0]).isPresent()),
                    new Fn(
                            "loadBalancer",
                            DYN,
                            List.of(DYN),
                            a -> lb(a[0]).map(View::of).orElse(null)),
                    new Fn(
                            "pods",
                            DYN,
                            List.of(DYN),
                            a -> memo().of("pods", workload(a[0]), w -> pods(w))),
                    new Fn(
                            "hpaOf",
                            LIST,
                            List.of(DYN),
                            a -> memo().of("hpaOf", workload(a[0]), Functions::hpaList)),
                    new Fn(
                            "pdbsOf",
                            LIST,
                            List.of(DYN),
                            a ->
                                    memo().of(
                                                    "pdbsOf",
                                                    workload(a[0]),
                                                    w -> kubeViews(memo().pdbsOf(kube(), w)))),
                    new Fn(
                            "servicesOf",
                            LIST,
                            List.of(DYN),
                            a ->
                                    memo().of(
                                                    "servicesOf",
                                                    workload(a[0]),
                                                    w -> kubeViews(memo().servicesOf(kube(), w)))),
                    new Fn(
                            "objects",
                            LIST,
                            List.of(SimpleType.STRING),
                            a -> objects((String) a[0])),
                    new Fn("selects", SimpleType.BOOL, List.of(DYN, DYN), a -> selects(a[0], a[1])),
                    // HAProxy
                    new Fn(
                            "millis",
                            SimpleType.INT,
                            List.of(SimpleType.STRING),
                            a -> Times.millis((String) a[0])),
                    new Fn(
                            "formatMillis",
                            SimpleType.STRING,
                            List.of(SimpleType.INT),
                            a -> Times.format((Long) a[0])),
                    new Fn(
                            "effective",
                            DYN,
                            List.of(DYN, SimpleType.STRING),
                            a -> effective(a[0], (String) a[1])),
                    new Fn("backendsOf", LIST, List.of(DYN), a -> backendsOf(a[0])),
                    // AWS
                    new Fn(
                            "attribute",
                            DYN,
                            List.of(DYN, SimpleType.STRING),
                            a -> attribute(a[0], (String) a[1])),
                    new Fn(
                            "isDefault",
                            SimpleType.BOOL,
                            List.of(DYN, SimpleType.STRING),
                            a -> isDefault(a[0], (String) a[1])),
                    new Fn(
                            "zoneShare",
                            SimpleType.STRING,
                            List.of(SimpleType.INT),
                            a -> NlbViews.share(Math.toIntExact((Long) a[0]))),
                    new Fn("targetGroupsOf", LIST, List.of(DYN), a -> targetGroupsOf(a[0])));

    private static final Map<String, Fn> BY_NAME = byName();

    private static Map<String, Fn> byName() {
        Map<String, Fn> m = new HashMap<>();
        for (Fn f : ALL) {
            m.put(f.name(), f);
        }
        return Map.copyOf(m);
    }

    /** The function of that name takes that many arguments (one overload each). */
    static boolean has(String name, int args) {
        Fn f = BY_NAME.get(name);
        return f != null && f.args().size() == args;
    }

    /**
     * Calls a function as CEL's runtime does (the same implementation; arguments of the classes its
     * binding takes: a string, an int (long), anything else for dyn); {@code null} when the
     * arguments are not of those classes, as CEL finds no overload for them.
     */
    static Optional<Object> call(String name, Object[] args) {
        Fn f = BY_NAME.get(name);
        if (f == null || f.args().size() != args.length) {
            return null;
        }
        for (int i = 0; i < args.length; i++) {
            CelType t = f.args().get(i);
            Object a = args[i];
            if (a == null
                    || (t == SimpleType.STRING && !(a instanceof String))
                    || (t == SimpleType.INT && !(a instanceof Long))) {
                return null;
            }
        }
        return Optional.ofNullable(f.impl().apply(args));
    }

    /** Names of every function (what the type-checker knows besides CEL's own). */
    static List<String> names() {
        return ALL.stream().map(Fn::name).toList();
    }

    static List<CelFunctionDecl> declarations() {
        List<CelFunctionDecl> out = new ArrayList<>();
        for (Fn f : ALL) {
            out.add(
                    CelFunctionDecl.newFunctionDeclaration(
                            f.name(),
                            CelOverloadDecl.newGlobalOverload(overload(f), f.result(), f.args())));
        }
        return out;
    }

    // the functions are stateless lambdas over the model (they read the snapshot through CURRENT)
    @SuppressWarnings("Immutable")
    static List<CelFunctionBinding> bindings() {
        List<CelFunctionBinding> out = new ArrayList<>();
        for (Fn f : ALL) {
            List<Class<?>> types = new ArrayList<>();
            for (CelType t : f.args()) {
                types.add(
                        t == SimpleType.STRING
                                ? String.class
                                : t == SimpleType.INT ? Long.class : Object.class);
            }
            out.add(CelFunctionBinding.from(overload(f), types, args -> f.impl().apply(args)));
        }
        return out;
    }

    private static String overload(Fn f) {
        return "deja_" + f.name();
    }

    private static Context context() {
        Context c = CURRENT.get();
        if (c == null) {
            throw new IllegalStateException("a deja function was called outside a rule's check");
        }
        return c;
    }

    private static KubeInventory kube() {
        return context().snapshot().part(KubeInventory.class).orElse(KubeInventory.EMPTY);
    }

    private static Workload workload(Object v) {
        if (View.source(v) instanceof Workload w) {
            return w;
        }
        throw new IllegalArgumentException(
                "expected a Deployment, StatefulSet or DaemonSet, not " + describe(v));
    }

    private static String describe(Object v) {
        Object s = View.source(v);
        return s == null ? "null" : s.getClass().getSimpleName();
    }

    private static Optional<LoadBalancers.Lb> lb(Object v) {
        if (!(View.source(v) instanceof Workload w)) {
            return Optional.empty();
        }
        return Optional.ofNullable(memo().lbs.get(w));
    }

    private static Object hpaList(Workload w) {
        return kubeViews(memo().hpaOf(kube(), w).stream().toList());
    }

    /** The shared views of Kubernetes objects ({@link Views#kubeView}). */
    private static Object kubeViews(List<?> models) {
        return Views.kubeViews(context().snapshot(), models);
    }

    private static Memo memo() {
        return context().memo();
    }

    /**
     * What the functions have worked out on one snapshot, shared by every rule and object that asks
     * again (fifty rules that call {@code pdbsOf(object)} on the same Deployment look its PDBs up
     * once). Keyed by the model object itself (identity: two equal definitions in two files are two
     * objects).
     */
    private static final class Memo {
        final Map<Workload, LoadBalancers.Lb> lbs = new IdentityHashMap<>();
        private final Map<String, Map<Object, Object>> results = new ConcurrentHashMap<>();

        private volatile KubeIndex index;

        Memo(Snapshot s) {
            for (LoadBalancers.Lb lb : LoadBalancers.of(s)) {
                lbs.putIfAbsent(lb.workload(), lb);
            }
        }

        private KubeIndex index(KubeInventory inv) {
            KubeIndex i = index;
            if (i == null) { // racing threads build equal indexes
                i = new KubeIndex(inv);
                index = i;
            }
            return i;
        }

        Optional<Hpa> hpaOf(KubeInventory inv, Workload w) {
            return index(inv).hpaOf(w);
        }

        List<Pdb> pdbsOf(KubeInventory inv, Workload w) {
            return index(inv).pdbsOf(w);
        }

        List<Service> servicesOf(KubeInventory inv, Workload w) {
            return index(inv).servicesOf(w);
        }

        <T> Object of(String fn, T key, Function<T, Object> compute) {
            Map<Object, Object> m =
                    results.computeIfAbsent(
                            fn, k -> Collections.synchronizedMap(new IdentityHashMap<>()));
            Object v = m.get(key);
            if (v == null) { // computed outside the lock; racing threads give equal values
                v = compute.apply(key);
                m.put(key, v);
            }
            return v;
        }
    }

    private static Object pods(Workload w) {
        Integer n = LbNoDisruptionHeadroom.floor(kube(), w);
        return n == null ? null : n.longValue();
    }

    private static Object objects(String kind) {
        return memo().of("objects", kind.intern(), k -> Views.kubeObjects(context().snapshot(), k));
    }

    private static boolean selects(Object selector, Object labels) {
        Object s = View.source(selector);
        Map<String, String> l = stringMap(labels);
        if (s instanceof Selector sel) {
            return sel.matches(l);
        }
        if (selector instanceof Map<?, ?> m) {
            return Selector.of(stringMap(m)).matches(l);
        }
        throw new IllegalArgumentException("selects: expected a selector, not " + describe(s));
    }

    private static Map<String, String> stringMap(Object o) {
        if (!(o instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("expected a map of labels, not " + describe(o));
        }
        Map<String, String> out = new java.util.TreeMap<>();
        m.forEach((k, v) -> out.put(String.valueOf(k), String.valueOf(v)));
        return out;
    }

    private static Section section(Object v) {
        Object s = View.source(v);
        if (s instanceof Section sec) {
            return sec;
        }
        if (s instanceof Frontends.Frontend f) {
            return f.section();
        }
        throw new IllegalArgumentException("expected a HAProxy section, not " + describe(v));
    }

    /**
     * The directive in effect for a section ("timeout server": its own, else its defaults'), or
     * null.
     */
    static Object effective(Object v, String keyword) {
        if (v instanceof View view) {
            // the same directive for every rule that asks: found once per object and keyword
            return view.computed("effective", keyword, () -> effectiveOf(v, keyword));
        }
        return effectiveOf(v, keyword);
    }

    private static Object effectiveOf(Object v, String keyword) {
        Section s = section(v);
        String k = keyword.strip();
        int sp = k.indexOf(' ');
        Directive d =
                sp < 0
                        ? s.effective(k)
                        : s.effective(k.substring(0, sp), k.substring(sp + 1).strip());
        return View.of(d);
    }

    private static Object backendsOf(Object v) {
        Object s = View.source(v);
        HaproxyConfig c = context().config();
        List<Section> out = new ArrayList<>();
        if (s instanceof Frontends.Frontend f && c != null) {
            for (String name : f.backends()) {
                c.backend(name).ifPresent(out::add);
            }
        } else {
            throw new IllegalArgumentException(
                    "backendsOf: expected a frontend, not " + describe(v));
        }
        return View.of(out);
    }

    private static LoadBalancerView loadBalancerView(Object v) {
        if (View.source(v) instanceof LoadBalancerView lb) {
            return lb;
        }
        throw new IllegalArgumentException("expected an AWS load balancer, not " + describe(v));
    }

    private static Object attribute(Object v, String key) {
        Object s = View.source(v);
        if (s instanceof TargetGroupView tg) {
            return tg.attributes().get(key);
        }
        return loadBalancerView(v).attribute(key);
    }

    private static boolean isDefault(Object v, String key) {
        Object s = View.source(v);
        if (s instanceof TargetGroupView tg) {
            return !tg.attributes().containsKey(key);
        }
        return loadBalancerView(v).isDefault(key);
    }

    private static Object targetGroupsOf(Object v) {
        AwsInventory inv = context().snapshot().part(AwsInventory.class).orElse(AwsInventory.EMPTY);
        return View.of(inv.targetGroupsOf(loadBalancerView(v)));
    }
}
