package dev.deja.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** HAProxy configurations inside ConfigMaps are scanned; findings name the ConfigMap, the key and the line. */
class HaproxyConfigMapsTest {
    @Test
    void configInAConfigMapIsScannedWithConfigMapKeyAndLine() {
        TestSupport.Run r = TestSupport.run("scan", "--format", "json", "--rules", "haproxy-tarpit-holds-slots",
                "src/test/resources/configmaps/haproxy-configmap.yaml");
        assertEquals(1, r.code(), r.err());
        JsonNode root = JsonMapper.builder().build().readTree(r.out());
        JsonNode findings = root.path("findings");
        assertEquals(1, findings.size(), r.out());
        JsonNode f = findings.get(0);
        assertEquals("haproxy-tarpit-holds-slots", f.path("ruleId").asString());
        assertEquals("ConfigMap edge/edge-haproxy#haproxy.cfg", f.path("location").path("file").asString());
        assertEquals(12, f.path("location").path("line").asInt(), "the tarpit line inside the value");
        assertTrue(f.path("message").asString().contains("300"), f.path("message").asString());
        boolean read = false;
        for (JsonNode e : root.path("coverage").path("entries")) {
            read |= e.path("source").asString().equals("haproxy")
                    && e.path("scope").asString().equals("ConfigMap edge/edge-haproxy#haproxy.cfg");
        }
        assertTrue(read, "coverage lists the ConfigMap key as read");
    }
}
