package dev.deja.snapshot;

import dev.deja.engine.InputException;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.AwsInventoryBuilder;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.TargetGroupView;
import dev.deja.model.aws.TargetView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The "aws" part of a deja snapshot: the {@link AwsInventory} as plain JSON.
 *
 * <pre>
 * {"loadBalancers": [{"arn", "name", "type", "scheme", "dnsName", "region", "vpcId", "zones": [..],
 *                     "attributes": {key: value}, "tags": {key: value}}],
 *  "targetGroups":  [{"arn", "name", "region", "protocol", "port", "targetType", "vpcId",
 *                     "healthCheck": {"enabled", "protocol", "port", "intervalSeconds", "timeoutSeconds",
 *                                     "healthyThreshold", "unhealthyThreshold"},
 *                     "attributes": {..}, "loadBalancerArns": [..],
 *                     "targets": [{"id", "port", "zone", "zoneSource", "state", "reason", "description"}],
 *                     "healthError": {"code", "message"}}]}
 * </pre>
 *
 * Attributes are kept as AWS returned them; missing ones take AWS's defaults when rules read them.
 */
public final class AwsSnapshotCodec implements SnapshotCodec {

    @Override
    public JsonNode write(Snapshot snapshot, JsonNodeFactory f) {
        AwsInventory inv = snapshot.part(AwsInventory.class).orElse(null);
        if (inv == null) {
            return null;
        }
        ObjectNode root = f.objectNode();
        ArrayNode lbs = root.putArray("loadBalancers");
        for (LoadBalancerView lb : inv.loadBalancers()) {
            ObjectNode o = lbs.addObject();
            o.put("arn", lb.arn());
            o.put("name", lb.name());
            putIf(o, "type", lb.type());
            putIf(o, "scheme", lb.scheme());
            putIf(o, "dnsName", lb.dnsName());
            o.put("region", lb.region());
            putIf(o, "vpcId", lb.vpcId());
            ArrayNode z = o.putArray("zones");
            lb.zones().forEach(z::add);
            map(o.putObject("attributes"), lb.attributes());
            if (!lb.attributesRead()) {
                o.put("attributesRead", false);
            }
            map(o.putObject("tags"), lb.tags());
        }
        ArrayNode tgs = root.putArray("targetGroups");
        for (TargetGroupView tg : inv.targetGroups()) {
            ObjectNode o = tgs.addObject();
            o.put("arn", tg.arn());
            o.put("name", tg.name());
            o.put("region", tg.region());
            putIf(o, "protocol", tg.protocol());
            if (tg.port() != null) {
                o.put("port", tg.port());
            }
            putIf(o, "targetType", tg.targetType());
            putIf(o, "vpcId", tg.vpcId());
            TargetGroupView.HealthCheck hc = tg.healthCheck();
            if (hc != null) {
                ObjectNode h = o.putObject("healthCheck");
                if (hc.enabled() != null) {
                    h.put("enabled", hc.enabled());
                }
                putIf(h, "protocol", hc.protocol());
                putIf(h, "port", hc.port());
                putInt(h, "intervalSeconds", hc.intervalSeconds());
                putInt(h, "timeoutSeconds", hc.timeoutSeconds());
                putInt(h, "healthyThreshold", hc.healthyThreshold());
                putInt(h, "unhealthyThreshold", hc.unhealthyThreshold());
            }
            map(o.putObject("attributes"), tg.attributes());
            if (!tg.attributesRead()) {
                o.put("attributesRead", false);
            }
            ArrayNode l = o.putArray("loadBalancerArns");
            tg.loadBalancerArns().forEach(l::add);
            ArrayNode ts = o.putArray("targets");
            for (TargetView t : tg.targets()) {
                ObjectNode x = ts.addObject();
                x.put("id", t.id());
                putInt(x, "port", t.port());
                putIf(x, "zone", t.zone());
                putIf(x, "zoneSource", t.zoneSource());
                putIf(x, "state", t.state());
                putIf(x, "reason", t.reason());
                putIf(x, "description", t.description());
            }
            if (tg.healthErrorCode() != null) {
                ObjectNode e = o.putObject("healthError");
                e.put("code", tg.healthErrorCode());
                putIf(e, "message", tg.healthErrorMessage());
            }
        }
        return root;
    }

    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out) {
        read(part, display, out, Unusable.STOP);
    }

    /**
     * The two lists are read on their own: one that cannot be used (a missing "arn", a port out of
     * range in one target group) is given whole to {@code unusable} and the other is used. No rule
     * concludes anything from an absent load balancer or target group: a finding pairs a load
     * balancer with a target group that names it, or judges one target group's own health check.
     */
    @Override
    public void read(JsonNode part, String display, SnapshotBuilder out, Unusable unusable) {
        Reader r = new Reader(display);
        if (!part.isObject()) {
            throw r.bad("parts.aws", "is not an object");
        }
        List<LoadBalancerView> lbs = List.of();
        try {
            lbs = loadBalancers(r, part);
        } catch (InputException e) {
            unusable.list("aws", "loadBalancers of snapshot " + display, e);
        }
        List<TargetGroupView> tgs = List.of();
        try {
            tgs = targetGroups(r, part);
        } catch (InputException e) {
            unusable.list("aws", "targetGroups of snapshot " + display, e);
        }
        out.builder(AwsInventoryBuilder.class, AwsInventoryBuilder::new)
                .add(new AwsInventory(lbs, tgs));
    }

    private static List<LoadBalancerView> loadBalancers(Reader r, JsonNode part) {
        List<LoadBalancerView> lbs = new ArrayList<>();
        int i = 0;
        for (JsonNode o : r.array(part, "loadBalancers", "parts.aws")) {
            String at = "parts.aws.loadBalancers[" + i++ + "]";
            List<String> zones = new ArrayList<>();
            for (JsonNode z : r.array(o, "zones", at)) {
                zones.add(r.text(z, at + ".zones"));
            }
            lbs.add(
                    new LoadBalancerView(
                            r.req(o, "arn", at),
                            r.req(o, "name", at),
                            r.req(o, "type", at),
                            r.opt(o, "scheme", at),
                            r.req(o, "region", at),
                            r.opt(o, "vpcId", at),
                            zones,
                            r.map(o, "attributes", at),
                            r.bool(o, "attributesRead", at, true),
                            r.map(o, "tags", at),
                            r.opt(o, "dnsName", at)));
        }
        return lbs;
    }

    private static List<TargetGroupView> targetGroups(Reader r, JsonNode part) {
        List<TargetGroupView> tgs = new ArrayList<>();
        int i = 0;
        for (JsonNode o : r.array(part, "targetGroups", "parts.aws")) {
            String at = "parts.aws.targetGroups[" + i++ + "]";
            JsonNode h = o.get("healthCheck");
            TargetGroupView.HealthCheck hc = null;
            if (h != null && !h.isNull()) {
                String hat = at + ".healthCheck";
                JsonNode en = h.get("enabled");
                if (en != null && !en.isBoolean()) {
                    throw r.bad(hat + ".enabled", "is not true or false");
                }
                hc =
                        new TargetGroupView.HealthCheck(
                                en == null ? null : en.asBoolean(),
                                r.opt(h, "protocol", hat),
                                r.opt(h, "port", hat),
                                r.integer(h, "intervalSeconds", hat),
                                r.integer(h, "timeoutSeconds", hat),
                                r.integer(h, "healthyThreshold", hat),
                                r.integer(h, "unhealthyThreshold", hat));
            }
            List<String> lbArns = new ArrayList<>();
            for (JsonNode a : r.array(o, "loadBalancerArns", at)) {
                lbArns.add(r.text(a, at + ".loadBalancerArns"));
            }
            List<TargetView> targets = new ArrayList<>();
            int j = 0;
            for (JsonNode t : r.array(o, "targets", at)) {
                String tat = at + ".targets[" + j++ + "]";
                String zone = r.opt(t, "zone", tat);
                String src = r.opt(t, "zoneSource", tat);
                targets.add(
                        new TargetView(
                                r.req(t, "id", tat),
                                r.port(t, "port", tat),
                                zone,
                                src != null ? src : zone == null ? "unknown" : "target",
                                r.req(t, "state", tat),
                                r.opt(t, "reason", tat),
                                r.opt(t, "description", tat)));
            }
            JsonNode err = o.get("healthError");
            String code = null;
            String msg = null;
            if (err != null && !err.isNull()) {
                code = r.req(err, "code", at + ".healthError");
                msg = r.opt(err, "message", at + ".healthError");
            }
            tgs.add(
                    new TargetGroupView(
                            r.req(o, "arn", at),
                            r.req(o, "name", at),
                            r.req(o, "region", at),
                            r.opt(o, "protocol", at),
                            r.port(o, "port", at),
                            r.opt(o, "targetType", at),
                            r.opt(o, "vpcId", at),
                            hc,
                            r.map(o, "attributes", at),
                            r.bool(o, "attributesRead", at, true),
                            lbArns,
                            targets,
                            code,
                            msg));
        }
        return tgs;
    }

    private static void putIf(ObjectNode o, String k, String v) {
        if (v != null) {
            o.put(k, v);
        }
    }

    private static void putInt(ObjectNode o, String k, Integer v) {
        if (v != null) {
            o.put(k, v);
        }
    }

    private static void map(ObjectNode o, Map<String, String> m) {
        m.forEach(o::put);
    }

    /** Typed access that names the file and JSON path of anything malformed. */
    private record Reader(String display) {
        InputException bad(String path, String what) {
            return new InputException("snapshot malformed: " + display + ": " + path + " " + what);
        }

        Iterable<JsonNode> array(JsonNode o, String key, String at) {
            JsonNode a = o.get(key);
            if (a == null || a.isNull()) {
                return List.of();
            }
            if (!a.isArray()) {
                throw bad(at + "." + key, "is not an array");
            }
            for (JsonNode e : a) {
                if (!e.isObject() && !e.isString()) {
                    throw bad(
                            at + "." + key,
                            "holds " + e.getNodeType().name().toLowerCase(Locale.ROOT) + " values");
                }
            }
            return a;
        }

        String text(JsonNode n, String at) {
            if (!n.isString()) {
                throw bad(at, "holds a value that is not a string");
            }
            return n.asString();
        }

        String req(JsonNode o, String key, String at) {
            if (!o.isObject()) {
                throw bad(at, "is not an object");
            }
            String v = opt(o, key, at);
            if (v == null || v.isEmpty()) {
                throw bad(at, "has no \"" + key + "\"");
            }
            return v;
        }

        String opt(JsonNode o, String key, String at) {
            JsonNode v = o.get(key);
            if (v == null || v.isNull()) {
                return null;
            }
            if (!v.isValueNode()) {
                throw bad(at + "." + key, "is not a string");
            }
            return v.asString();
        }

        boolean bool(JsonNode o, String key, String at, boolean dflt) {
            JsonNode v = o.get(key);
            if (v == null || v.isNull()) {
                return dflt;
            }
            if (!v.isBoolean()) {
                throw bad(at + "." + key, "is not true or false");
            }
            return v.asBoolean();
        }

        Integer integer(JsonNode o, String key, String at) {
            JsonNode v = o.get(key);
            if (v == null || v.isNull()) {
                return null;
            }
            if (v.isIntegralNumber()) {
                if (!v.canConvertToInt()) {
                    throw bad(at + "." + key, "is out of range (" + v.asString() + ")");
                }
                return v.asInt();
            }
            if (v.isString()) {
                try {
                    return Integer.parseInt(v.asString().trim());
                } catch (NumberFormatException e) {
                    // fall through
                }
            }
            throw bad(at + "." + key, "is not an integer");
        }

        /** A TCP/UDP port (1 to 65535), or null when absent (a Lambda target group has none). */
        Integer port(JsonNode o, String key, String at) {
            Integer p = integer(o, key, at);
            if (p != null && (p < 1 || p > 65535)) {
                throw bad(at + "." + key, "is out of range (" + p + ", a port is 1 to 65535)");
            }
            return p;
        }

        Map<String, String> map(JsonNode o, String key, String at) {
            JsonNode m = o.get(key);
            Map<String, String> out = new LinkedHashMap<>();
            if (m == null || m.isNull()) {
                return out;
            }
            if (!m.isObject()) {
                throw bad(at + "." + key, "is not an object of strings");
            }
            for (Map.Entry<String, JsonNode> e : m.properties()) {
                if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                    throw bad(at + "." + key + "." + e.getKey(), "is not a string");
                }
                out.put(e.getKey(), e.getValue().asString());
            }
            return out;
        }
    }
}
