package dev.deja.rules.cel;

import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.engine.Location;
import dev.deja.engine.Snapshot;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.NlbViews;
import dev.deja.model.aws.TargetGroupView;
import dev.deja.model.haproxy.Frontends;
import dev.deja.model.haproxy.HaproxyConfig;
import dev.deja.model.haproxy.HaproxyConfigs;
import dev.deja.model.haproxy.Section;
import dev.deja.model.kube.KubeInventory;
import dev.deja.model.kube.KubeRaw;
import dev.deja.model.kube.KubeScope;
import dev.deja.model.kube.Meta;
import dev.deja.rules.haproxy.Notes;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * What {@code check.for} iterates over, per source, and where a finding on each object points: the
 * same views and locations the Java rules use ({@link Frontends#of}, {@link Notes#at}, {@link
 * Meta#location}, {@link NlbViews#location}).
 */
final class Views {
    private Views() {}

    /** One object a rule judges. */
    record Item(
            Object value,
            Location location,
            IntFunction<Location> lineAt,
            String label,
            HaproxyConfig config) {
        Location at(int line) {
            return lineAt.apply(line);
        }
    }

    /** The objects of a snapshot that one rule judges. */
    interface Over {
        List<Item> items(Snapshot s);

        default Set<String> kinds() {
            return Set.of();
        }

        default List<Finding> scoped(Snapshot s, List<Finding> found) {
            return found;
        }
    }

    static final Set<String> HAPROXY =
            Set.of(
                    "frontends",
                    "backends",
                    "listens",
                    "defaults",
                    "proxies",
                    "sections",
                    "configs");
    static final Set<String> AWS = Set.of("loadBalancers", "networkLoadBalancers", "targetGroups");

    static Over over(RuleFile f, RuleFile.Check c) {
        return switch (f.metadata().source()) {
            case HAPROXY -> {
                String w = single(f, c, HAPROXY);
                yield s -> shared(s, "haproxy:" + w, () -> haproxy(s, w));
            }
            case AWS -> {
                String w = single(f, c, AWS);
                yield s -> shared(s, "aws:" + w, () -> aws(s, w));
            }
            case KUBERNETES -> kube(f, c);
        };
    }

    /**
     * The objects of one {@code check.for} of a snapshot, built once and shared by every rule that
     * iterates over them (and the views' converted fields with them): fifty rules over the
     * frontends read each frontend's settings once.
     */
    private static List<Item> shared(Snapshot s, String key, Supplier<List<Item>> build) {
        return s.derived(Shared.class, x -> new Shared())
                .items
                .computeIfAbsent(key, k -> build.get());
    }

    /** What {@link #shared} keeps for one snapshot. */
    private static final class Shared {
        final Map<String, List<Item>> items = new ConcurrentHashMap<>();
    }

    private static String single(RuleFile f, RuleFile.Check c, Set<String> allowed) {
        if (c.over().size() != 1 || !allowed.contains(c.over().get(0))) {
            throw new InputException(
                    f.path()
                            + ": "
                            + c.name()
                            + ".for of a "
                            + f.metadata().source().id()
                            + " rule is one of "
                            + new TreeSet<>(allowed)
                            + ", not "
                            + String.join(", ", c.over()));
        }
        return c.over().get(0);
    }

    private static List<Item> haproxy(Snapshot s, String what) {
        List<Item> out = new ArrayList<>();
        List<HaproxyConfig> configs =
                s.part(HaproxyConfigs.class).map(HaproxyConfigs::configs).orElse(List.of());
        for (HaproxyConfig c : configs) {
            switch (what) {
                case "frontends" -> {
                    for (Frontends.Frontend f : Frontends.of(c)) {
                        out.add(section(View.of(f), f.section(), c));
                    }
                }
                case "configs" -> {
                    Section a = c.anchor();
                    out.add(
                            new Item(
                                    View.of(c),
                                    Notes.at(a),
                                    line -> Location.section(a.file(), line, a.kind(), a.name()),
                                    c.name(),
                                    c));
                }
                default -> {
                    for (Section sec : c.sections()) {
                        boolean take =
                                switch (what) {
                                    case "backends" -> sec.kind().equals("backend");
                                    case "listens" -> sec.kind().equals("listen");
                                    case "defaults" -> sec.kind().equals("defaults");
                                    case "proxies" -> sec.isProxy();
                                    default -> true;
                                };
                        if (take) {
                            out.add(section(View.of(sec), sec, c));
                        }
                    }
                }
            }
        }
        return out;
    }

    private static Item section(Object value, Section s, HaproxyConfig c) {
        return new Item(
                value,
                Notes.at(s),
                line ->
                        s.name() == null
                                ? Location.section(s.file(), line, null, s.kind())
                                : Location.section(s.file(), line, s.kind(), s.name()),
                s.label() + " (" + s.where() + ")",
                c);
    }

    private static List<Item> aws(Snapshot s, String what) {
        AwsInventory inv = s.part(AwsInventory.class).orElse(AwsInventory.EMPTY);
        List<Item> out = new ArrayList<>();
        if (what.equals("targetGroups")) {
            for (TargetGroupView tg : inv.targetGroups()) {
                Location l = NlbViews.location(tg);
                out.add(new Item(View.of(tg), l, line -> l, "target group " + tg.name(), null));
            }
            return out;
        }
        for (LoadBalancerView lb : inv.loadBalancers()) {
            if (what.equals("networkLoadBalancers") && !lb.isNetwork()) {
                continue;
            }
            Location l = NlbViews.location(lb);
            Map<String, Supplier<Object>> extras = Map.of("displayName", () -> NlbViews.name(lb));
            out.add(new Item(View.withExtras(lb, extras), l, line -> l, lb.label(), null));
        }
        return out;
    }

    /** The objects of the kinds wanted, in inventory order. */
    private static List<Item> kubeItems(Snapshot s, Set<String> wanted) {
        List<Item> out = new ArrayList<>();
        for (Map.Entry<String, List<Item>> e : kubeByKind(s).entrySet()) {
            if (wanted.contains(e.getKey())) {
                out.addAll(e.getValue());
            }
        }
        return out;
    }

    /**
     * Every object of the inventory, by kind, each kind's in inventory order (one view per object,
     * whatever rules judge it).
     */
    private static Map<String, List<Item>> kubeByKind(Snapshot s) {
        return s.derived(KubeItems.class, x -> new KubeItems(x)).byKind;
    }

    /**
     * The CEL value of a Kubernetes model object (a workload, a PodDisruptionBudget a function
     * found): the one view of it every rule shares, with its object as the API returns it when
     * kept.
     */
    static Object kubeView(Snapshot s, Object model) {
        Object v = s.derived(KubeItems.class, x -> new KubeItems(x)).views.get(model);
        return v != null ? v : View.of(model);
    }

    /** The CEL values of a list of Kubernetes model objects. */
    static List<Object> kubeViews(Snapshot s, List<?> models) {
        List<Object> out = new ArrayList<>(models.size());
        for (Object o : models) {
            out.add(kubeView(s, o));
        }
        return out;
    }

    private static final class KubeItems {
        final Map<String, List<Item>> byKind;
        final Map<Object, Object> views = new IdentityHashMap<>();

        KubeItems(Snapshot s) {
            Map<String, List<Item>> out = new LinkedHashMap<>();
            KubeInventory inv = s.part(KubeInventory.class).orElse(null);
            KubeRaw raw = s.part(KubeRaw.class).orElse(KubeRaw.EMPTY);
            if (inv != null) {
                for (Object o : KubeObjects.all(inv)) {
                    Meta m = KubeObjects.meta(o);
                    View v = View.kube(o, m, raw.of(m));
                    views.put(o, v);
                    out.computeIfAbsent(m.kind(), k -> new ArrayList<>())
                            .add(new Item(v, m.location(), m::at, m.display(), null));
                }
            }
            this.byKind = out;
        }
    }

    /** The shared views of every object of a kind, in inventory order. */
    static List<Object> kubeObjects(Snapshot s, String kind) {
        List<Item> items = kubeByKind(s).get(kind);
        if (items == null) {
            return List.of();
        }
        List<Object> out = new ArrayList<>(items.size());
        for (Item i : items) {
            out.add(i.value());
        }
        return out;
    }

    private static Over kube(RuleFile f, RuleFile.Check c) {
        List<String> kinds = c.over();
        for (String k : kinds) {
            if (k.isEmpty() || !Character.isUpperCase(k.charAt(0))) {
                throw new InputException(
                        f.path()
                                + ": "
                                + c.name()
                                + ".for of a kubernetes rule lists kinds as the API names"
                                + " them (Deployment, Service, ...), not '"
                                + k
                                + "'");
            }
        }
        Set<String> wanted = Set.copyOf(kinds);
        return new Over() {
            @Override
            public List<Item> items(Snapshot s) {
                return shared(s, "kubernetes:" + new TreeSet<>(wanted), () -> kubeItems(s, wanted));
            }

            @Override
            public Set<String> kinds() {
                return wanted;
            }

            @Override
            public List<Finding> scoped(Snapshot s, List<Finding> found) {
                // -l/--selector: findings only on the objects the scan is narrowed to, as for
                // the built-in rules
                KubeInventory inv = s.part(KubeInventory.class).orElse(KubeInventory.EMPTY);
                return s.part(KubeScope.class).map(scope -> scope.keep(inv, found)).orElse(found);
            }
        };
    }
}
