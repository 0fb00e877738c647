package dev.deja.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A Jackson tree (an object from an API server list) as a {@link Tree}, without lines. {@code kind} and
 * {@code apiVersion} can be supplied, since the items of a list response usually omit them.
 */
final class JsonTree implements Tree {
    private final JsonNode node;
    private final String kind;
    private final String apiVersion;

    JsonTree(JsonNode node, String kind, String apiVersion) {
        this.node = node;
        this.kind = kind;
        this.apiVersion = apiVersion;
    }

    private static Tree of(JsonNode n) {
        return n == null || n.isNull() || n.isMissingNode() ? null : new JsonTree(n, null, null);
    }

    @Override
    public Tree get(String key) {
        return of(node.get(key));
    }

    @Override
    public String text(String key) {
        if (kind != null && key.equals("kind")) {
            return kind;
        }
        if (apiVersion != null && key.equals("apiVersion") && node.get("apiVersion") == null) {
            return apiVersion;
        }
        return Tree.super.text(key);
    }

    @Override
    public String text() {
        return node.isValueNode() ? node.asString() : null;
    }

    @Override
    public List<Tree> items() {
        if (!node.isArray()) {
            return List.of();
        }
        List<Tree> out = new ArrayList<>(node.size());
        for (JsonNode n : node) {
            out.add(new JsonTree(n, null, null));
        }
        return out;
    }

    @Override
    public List<Map.Entry<String, Tree>> entries() {
        if (!node.isObject()) {
            return List.of();
        }
        List<Map.Entry<String, Tree>> out = new ArrayList<>(node.size());
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            out.add(new java.util.AbstractMap.SimpleImmutableEntry<>(e.getKey(), of(e.getValue())));
        }
        return out;
    }

    @Override
    public boolean isMapping() {
        return node.isObject();
    }

    @Override
    public Integer line() {
        return null;
    }

    @Override
    public Integer keyLine(String key) {
        return null;
    }
}
