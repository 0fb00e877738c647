package dev.deja.model.kube;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns one object (a manifest document or an object from the API server) into its view: only the
 * fields the rules read are kept. Objects of kinds without a dedicated view are kept as their
 * {@link Meta}.
 */
public final class ViewReader {
    public static final String LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

    private ViewReader() {}

    /** The view of an object; {@code file} is null for live objects. */
    public static Object read(Tree obj, String file) {
        String kind = obj.text("kind");
        Meta meta = meta(obj, kind, file);
        return switch (kind == null ? "" : kind) {
            case "Deployment", "StatefulSet", "DaemonSet" -> workload(obj, meta);
            case "Service" -> service(obj, meta);
            case "HorizontalPodAutoscaler" -> hpa(obj, meta);
            case "PodDisruptionBudget" -> pdb(obj, meta);
            case "Ingress" -> new Ingress(meta, text(obj.path("spec", "ingressClassName")));
            case "IngressClass" -> new IngressClass(meta, text(obj.path("spec", "controller")));
            case "ConfigMap" -> configMap(obj, meta);
            case "NetworkPolicy" -> networkPolicy(obj, meta);
            case "ValidatingWebhookConfiguration" -> webhooks(obj, meta);
            case "ClusterRole" -> clusterRole(obj, meta);
            case "ClusterRoleBinding" -> clusterRoleBinding(obj, meta);
            case "CustomResourceDefinition" -> crd(obj, meta);
            case "Pod" -> pod(obj, meta);
            default -> meta;
        };
    }

    static Meta meta(Tree obj, String kind, String file) {
        Tree md = obj.get("metadata");
        String ns = md == null ? null : md.text("namespace");
        String name = md == null ? null : md.text("name");
        if (name == null && md != null && md.text("generateName") != null) {
            name = md.text("generateName") + "*";
        }
        Map<String, String> annotations = md == null ? Map.of() : md.strings("annotations");
        if (annotations.containsKey(
                LAST_APPLIED)) { // a copy of the whole object: not worth keeping
            annotations = new LinkedHashMap<>(annotations);
            annotations.remove(LAST_APPLIED);
        }
        return new Meta(
                obj.text("apiVersion"),
                kind,
                ns,
                name,
                md == null ? Map.of() : md.strings("labels"),
                annotations,
                file,
                file == null ? null : obj.line());
    }

    private static String text(Tree t) {
        return t == null ? null : t.text();
    }

    private static Pod pod(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        List<Container> containers = new ArrayList<>();
        Tree cs = spec == null ? null : spec.get("containers");
        if (cs != null) {
            for (Tree c : cs.items()) {
                containers.add(container(c));
            }
        }
        return new Pod(meta, containers, spec == null ? null : spec.text("nodeName"));
    }

    private static Workload workload(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        if (spec == null) {
            return new Workload(
                    meta, null, null, null, null, null, null, null, null, null, null, null);
        }
        Integer replicas = spec.integer("replicas");
        String strategy = null;
        String maxUnavailable = null;
        Integer strategyLine = null;
        Tree st = spec.get("strategy") != null ? spec.get("strategy") : spec.get("updateStrategy");
        if (st != null) {
            strategyLine =
                    spec.get("strategy") != null
                            ? spec.keyLine("strategy")
                            : spec.keyLine("updateStrategy");
            strategy = st.text("type");
            Tree ru = st.get("rollingUpdate");
            if (ru != null) {
                maxUnavailable = ru.text("maxUnavailable");
                Integer l = ru.keyLine("maxUnavailable");
                if (l != null) {
                    strategyLine = l;
                }
            }
        }
        Tree tpl = spec.get("template");
        Tree tmd = tpl == null ? null : tpl.get("metadata");
        Tree pod = tpl == null ? null : tpl.get("spec");
        List<Container> containers = new ArrayList<>();
        List<Workload.Spread> tsc = new ArrayList<>();
        List<Workload.Spread> anti = new ArrayList<>();
        if (pod != null) {
            Tree cs = pod.get("containers");
            if (cs != null) {
                for (Tree c : cs.items()) {
                    containers.add(container(c));
                }
            }
            spreadConstraints(pod, tsc);
            antiAffinity(pod, anti);
        }
        String sa =
                pod == null
                        ? null
                        : pod.text("serviceAccountName") != null
                                ? pod.text("serviceAccountName")
                                : pod.text("serviceAccount"); // the deprecated alias
        return new Workload(
                meta,
                replicas,
                strategy,
                maxUnavailable,
                selector(spec.get("selector")),
                tmd == null ? Map.of() : tmd.strings("labels"),
                tmd == null ? Map.of() : tmd.strings("annotations"),
                containers,
                tsc,
                anti,
                spec.keyLine("replicas"),
                strategyLine,
                sa,
                volumes(pod));
    }

    /** The pod spec's topologySpreadConstraints (hard unless ScheduleAnyway). */
    private static void spreadConstraints(Tree pod, List<Workload.Spread> out) {
        Tree t = pod.get("topologySpreadConstraints");
        if (t != null) {
            for (Tree c : t.items()) {
                out.add(
                        new Workload.Spread(
                                c.text("topologyKey"),
                                !"ScheduleAnyway".equals(c.text("whenUnsatisfiable")),
                                selector(c.get("labelSelector"))));
            }
        }
    }

    /** The pod spec's podAntiAffinity terms: required ones hard, preferred ones soft. */
    private static void antiAffinity(Tree pod, List<Workload.Spread> out) {
        Tree pa = pod.path("affinity", "podAntiAffinity");
        if (pa == null) {
            return;
        }
        Tree req = pa.get("requiredDuringSchedulingIgnoredDuringExecution");
        if (req != null) {
            for (Tree term : req.items()) {
                out.add(
                        new Workload.Spread(
                                term.text("topologyKey"),
                                true,
                                selector(term.get("labelSelector"))));
            }
        }
        Tree pref = pa.get("preferredDuringSchedulingIgnoredDuringExecution");
        if (pref != null) {
            for (Tree w : pref.items()) {
                Tree term = w.get("podAffinityTerm");
                if (term != null) {
                    out.add(
                            new Workload.Spread(
                                    term.text("topologyKey"),
                                    false,
                                    selector(term.get("labelSelector"))));
                }
            }
        }
    }

    static Selector selector(Tree sel) {
        if (sel == null) {
            return Selector.EMPTY;
        }
        List<Selector.Expression> exprs = new ArrayList<>();
        Tree me = sel.get("matchExpressions");
        if (me != null) {
            for (Tree e : me.items()) {
                exprs.add(
                        new Selector.Expression(
                                e.text("key"), e.text("operator"), e.texts("values")));
            }
        }
        return new Selector(sel.strings("matchLabels"), exprs);
    }

    /**
     * The fields of a container that {@link #container} reads: a live scan's parser builds no
     * others (environment, volume mounts and resources are most of a container's size). Read a new
     * field here, add it here.
     */
    public static final Set<String> CONTAINER_FIELDS =
            Set.of(
                    "name",
                    "image",
                    "command",
                    "args",
                    "ports",
                    "readinessProbe",
                    "livenessProbe",
                    "startupProbe",
                    "resources",
                    "env",
                    "envFrom",
                    "volumeMounts");

    /** Fields of a pod spec no view reads, which a live scan's parser skips. */
    public static final Set<String> POD_SPEC_SKIPPED =
            Set.of(
                    "initContainers",
                    "ephemeralContainers",
                    "tolerations",
                    "imagePullSecrets",
                    "hostAliases",
                    "securityContext",
                    "dnsConfig",
                    "readinessGates",
                    "resourceClaims",
                    "overhead");

    private static Container container(Tree c) {
        Map<String, Integer> ports = new LinkedHashMap<>();
        Tree ps = c.get("ports");
        if (ps != null) {
            for (Tree p : ps.items()) {
                Integer n = p.integer("containerPort");
                if (n != null) {
                    String name = p.text("name");
                    ports.put(name != null ? name : n.toString(), n);
                }
            }
        }
        return new Container(
                c.text("name"),
                c.text("image"),
                c.texts("command"),
                c.texts("args"),
                ports,
                probe(c, "readinessProbe"),
                probe(c, "livenessProbe"),
                probe(c, "startupProbe"),
                c.line(),
                cpuLimit(c),
                env(c),
                envFrom(c),
                mounts(c));
    }

    /** The env entries {@link Container#envKept} keeps (a container's env can be large). */
    private static List<Container.EnvVar> env(Tree c) {
        List<Container.EnvVar> out = new ArrayList<>();
        Tree env = c.get("env");
        if (env == null) {
            return out;
        }
        for (Tree e : env.items()) {
            String name = e.text("name");
            if (!Container.envKept(name)) {
                continue;
            }
            Tree from = e.get("valueFrom");
            if (from == null) {
                out.add(new Container.EnvVar(name, e.text("value"), null, null, null));
                continue;
            }
            Tree cm = from.get("configMapKeyRef");
            if (cm != null) {
                out.add(new Container.EnvVar(name, null, cm.text("name"), cm.text("key"), null));
                continue;
            }
            String other = "valueFrom";
            for (Map.Entry<String, Tree> k : from.entries()) {
                other = k.getKey();
                break;
            }
            out.add(new Container.EnvVar(name, null, null, null, other));
        }
        return out;
    }

    private static List<Container.EnvFrom> envFrom(Tree c) {
        List<Container.EnvFrom> out = new ArrayList<>();
        Tree ef = c.get("envFrom");
        if (ef == null) {
            return out;
        }
        for (Tree e : ef.items()) {
            Tree cm = e.get("configMapRef");
            Tree sec = e.get("secretRef");
            out.add(
                    new Container.EnvFrom(
                            cm == null ? null : cm.text("name"),
                            sec == null ? null : sec.text("name"),
                            e.text("prefix")));
        }
        return out;
    }

    private static List<Container.Mount> mounts(Tree c) {
        List<Container.Mount> out = new ArrayList<>();
        Tree vm = c.get("volumeMounts");
        if (vm == null) {
            return out;
        }
        for (Tree m : vm.items()) {
            String sub = m.text("subPath");
            out.add(
                    new Container.Mount(
                            m.text("name"),
                            m.text("mountPath"),
                            sub == null || sub.isEmpty() ? null : sub));
        }
        return out;
    }

    /** The pod's volumes: a ConfigMap's with its items, the others by kind only. */
    private static List<Workload.Volume> volumes(Tree pod) {
        List<Workload.Volume> out = new ArrayList<>();
        Tree vs = pod == null ? null : pod.get("volumes");
        if (vs == null) {
            return out;
        }
        for (Tree v : vs.items()) {
            String name = v.text("name");
            Tree cm = v.get("configMap");
            if (cm != null) {
                Map<String, String> items = new LinkedHashMap<>();
                Tree its = cm.get("items");
                if (its != null) {
                    for (Tree i : its.items()) {
                        if (i.text("path") != null && i.text("key") != null) {
                            items.put(i.text("path"), i.text("key"));
                        }
                    }
                }
                out.add(
                        new Workload.Volume(
                                name,
                                "configMap",
                                cm.text("name"),
                                items,
                                "true".equals(cm.text("optional"))));
                continue;
            }
            String kind = "unknown";
            for (Map.Entry<String, Tree> k : v.entries()) {
                if (!k.getKey().equals("name")) {
                    kind = k.getKey();
                    break;
                }
            }
            out.add(new Workload.Volume(name, kind, null, null, false));
        }
        return out;
    }

    private static String cpuLimit(Tree c) {
        Tree cpu = c.path("resources", "limits", "cpu");
        return cpu == null ? null : cpu.text();
    }

    private static Probe probe(Tree c, String key) {
        Tree p = c.get(key);
        if (p == null || !p.isMapping()) {
            return null;
        }
        String handler = null;
        String path = null;
        String port = null;
        String scheme = null;
        List<String> command = List.of();
        if (p.get("httpGet") != null) {
            handler = "httpGet";
            Tree h = p.get("httpGet");
            path = h.text("path");
            port = h.text("port");
            scheme = h.text("scheme");
        } else if (p.get("tcpSocket") != null) {
            handler = "tcpSocket";
            port = p.get("tcpSocket").text("port");
        } else if (p.get("grpc") != null) {
            handler = "grpc";
            port = p.get("grpc").text("port");
        } else if (p.get("exec") != null) {
            handler = "exec";
            command = p.get("exec").texts("command");
        }
        return new Probe(
                handler,
                path,
                port,
                scheme,
                command,
                p.integer("timeoutSeconds"),
                p.integer("periodSeconds"),
                p.integer("failureThreshold"),
                p.integer("initialDelaySeconds"),
                c.keyLine(key));
    }

    private static Service service(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        if (spec == null) {
            return new Service(meta, null, Map.of(), null, null);
        }
        return new Service(
                meta,
                spec.text("type") == null ? "ClusterIP" : spec.text("type"),
                spec.strings("selector"),
                spec.text("loadBalancerClass"),
                spec.text("externalTrafficPolicy"),
                spec.texts("externalIPs"));
    }

    private static Hpa hpa(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        if (spec == null) {
            return new Hpa(meta, null, null, null, null);
        }
        Tree ref = spec.get("scaleTargetRef");
        return new Hpa(
                meta,
                ref == null ? null : ref.text("kind"),
                ref == null ? null : ref.text("name"),
                spec.integer("minReplicas"),
                spec.integer("maxReplicas"));
    }

    private static Pdb pdb(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        if (spec == null) {
            return new Pdb(meta, Selector.EMPTY, null, null);
        }
        return new Pdb(
                meta,
                selector(spec.get("selector")),
                spec.text("minAvailable"),
                spec.text("maxUnavailable"));
    }

    private static ConfigMap configMap(Tree obj, Meta meta) {
        Tree data = obj.get("data");
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, Integer> lines = new LinkedHashMap<>();
        if (data != null) {
            for (Map.Entry<String, Tree> e : data.entries()) {
                String v = e.getValue() == null ? null : e.getValue().text();
                if (v != null) {
                    values.put(e.getKey(), v);
                    Integer l = data.keyLine(e.getKey());
                    if (l != null) {
                        lines.put(e.getKey(), l);
                    }
                }
            }
        }
        return new ConfigMap(meta, values, lines);
    }

    /**
     * A selector that is absent stays null; {@code {}} is an empty selector (it selects
     * everything).
     */
    private static Selector optionalSelector(Tree sel) {
        return sel == null ? null : selector(sel);
    }

    private static NetworkPolicy networkPolicy(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        if (spec == null) {
            return new NetworkPolicy(meta, Selector.EMPTY, List.of(), List.of());
        }
        List<NetworkPolicy.Rule> rules = new ArrayList<>();
        Tree ing = spec.get("ingress");
        if (ing != null) {
            for (Tree r : ing.items()) {
                List<NetworkPolicy.Port> ports = new ArrayList<>();
                Tree ps = r.get("ports");
                if (ps != null) {
                    for (Tree p : ps.items()) {
                        ports.add(
                                new NetworkPolicy.Port(
                                        p.text("protocol"), p.text("port"), p.integer("endPort")));
                    }
                }
                List<NetworkPolicy.Peer> from = new ArrayList<>();
                Tree fs = r.get("from");
                if (fs != null) {
                    for (Tree f : fs.items()) {
                        Tree ip = f.get("ipBlock");
                        from.add(
                                new NetworkPolicy.Peer(
                                        optionalSelector(f.get("podSelector")),
                                        optionalSelector(f.get("namespaceSelector")),
                                        ip == null ? null : ip.text("cidr"),
                                        ip == null ? List.of() : ip.texts("except")));
                    }
                }
                rules.add(new NetworkPolicy.Rule(ports, from));
            }
        }
        return new NetworkPolicy(
                meta, selector(spec.get("podSelector")), spec.texts("policyTypes"), rules);
    }

    private static WebhookConfiguration webhooks(Tree obj, Meta meta) {
        List<WebhookConfiguration.Webhook> hooks = new ArrayList<>();
        Tree ws = obj.get("webhooks");
        if (ws != null) {
            for (Tree w : ws.items()) {
                Tree cc = w.get("clientConfig");
                Tree svc = cc == null ? null : cc.get("service");
                hooks.add(
                        new WebhookConfiguration.Webhook(
                                w.text("name"),
                                svc == null ? null : svc.text("namespace"),
                                svc == null ? null : svc.text("name"),
                                svc == null ? null : svc.integer("port"),
                                cc == null ? null : cc.text("url"),
                                w.text("failurePolicy"),
                                w.line()));
            }
        }
        return new WebhookConfiguration(meta, hooks);
    }

    private static ClusterRole clusterRole(Tree obj, Meta meta) {
        List<ClusterRole.PolicyRule> rules = new ArrayList<>();
        Tree rs = obj.get("rules");
        if (rs != null) {
            for (Tree r : rs.items()) {
                rules.add(
                        new ClusterRole.PolicyRule(
                                r.texts("apiGroups"),
                                r.texts("resources"),
                                r.texts("verbs"),
                                r.texts("resourceNames")));
            }
        }
        return new ClusterRole(meta, rules);
    }

    private static ClusterRoleBinding clusterRoleBinding(Tree obj, Meta meta) {
        Tree ref = obj.get("roleRef");
        List<ClusterRoleBinding.Subject> subjects = new ArrayList<>();
        Tree ss = obj.get("subjects");
        if (ss != null) {
            for (Tree s : ss.items()) {
                subjects.add(
                        new ClusterRoleBinding.Subject(
                                s.text("kind"), s.text("name"), s.text("namespace")));
            }
        }
        return new ClusterRoleBinding(
                meta,
                ref == null ? null : ref.text("kind"),
                ref == null ? null : ref.text("name"),
                subjects);
    }

    /**
     * A CustomResourceDefinition: group, kind, and per version whether {@code spec} is checked
     * against a schema ({@code apiextensions.k8s.io/v1}: {@code spec.versions[].schema}; {@code
     * v1beta1}: the same, or one {@code spec.validation} for every version).
     */
    private static CustomResourceDefinition crd(Tree obj, Meta meta) {
        Tree spec = obj.get("spec");
        if (spec == null) {
            return new CustomResourceDefinition(meta, null, null, List.of());
        }
        boolean v1beta1 = "apiextensions.k8s.io/v1beta1".equals(meta.apiVersion());
        // v1beta1 keeps unknown fields unless spec.preserveUnknownFields is false; v1 prunes them
        boolean preserves = v1beta1 && !"false".equals(spec.text("preserveUnknownFields"));
        Tree shared = spec.path("validation", "openAPIV3Schema");
        List<CustomResourceDefinition.Version> versions = new ArrayList<>();
        Tree vs = spec.get("versions");
        if (vs != null && !vs.items().isEmpty()) {
            for (Tree v : vs.items()) {
                Tree own = v.path("schema", "openAPIV3Schema");
                versions.add(
                        new CustomResourceDefinition.Version(
                                v.text("name"),
                                !"false".equals(v.text("served")),
                                specSchema(own != null ? own : shared, preserves),
                                v.line()));
            }
        } else if (spec.text("version") != null) {
            versions.add(
                    new CustomResourceDefinition.Version(
                            spec.text("version"),
                            true,
                            specSchema(shared, preserves),
                            spec.keyLine("version")));
        }
        return new CustomResourceDefinition(
                meta, spec.text("group"), text(spec.path("names", "kind")), versions);
    }

    /** The verdict on one version's schema: none, open on spec, or checked. */
    static CustomResourceDefinition.SpecSchema specSchema(Tree schema, boolean preserves) {
        if (schema == null || !schema.isMapping()) {
            return CustomResourceDefinition.SpecSchema.NONE;
        }
        Tree spec = schema.path("properties", "spec");
        Tree props = spec == null ? null : spec.get("properties");
        if (props != null && props.isMapping() && !props.entries().isEmpty()) {
            return CustomResourceDefinition.SpecSchema.CHECKED;
        }
        boolean keepsUnknown =
                preserves
                        || spec != null
                                && "true".equals(spec.text("x-kubernetes-preserve-unknown-fields"))
                        || spec == null
                                && "true"
                                        .equals(
                                                schema.text(
                                                        "x-kubernetes-preserve-unknown-fields"));
        return keepsUnknown
                ? CustomResourceDefinition.SpecSchema.OPEN
                : CustomResourceDefinition.SpecSchema.CHECKED;
    }
}
