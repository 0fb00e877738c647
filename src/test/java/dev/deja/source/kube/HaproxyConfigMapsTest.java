package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * HAProxy configurations inside ConfigMaps are scanned; findings name the ConfigMap, the key and
 * the line.
 */
class HaproxyConfigMapsTest {
    @Test
    void configInAConfigMapIsScannedWithConfigMapKeyAndLine() {
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--format",
                        "json",
                        "--rules",
                        "haproxy-tarpit-holds-slots",
                        "src/test/resources/configmaps/haproxy-configmap.yaml");
        assertEquals(1, r.code(), r.err());
        JsonNode root = JsonMapper.builder().build().readTree(r.out());
        JsonNode findings = root.path("findings");
        assertEquals(1, findings.size(), r.out());
        JsonNode f = findings.get(0);
        assertEquals("haproxy-tarpit-holds-slots", f.path("ruleId").asString());
        assertEquals(
                "ConfigMap edge/edge-haproxy#haproxy.cfg",
                f.path("location").path("file").asString());
        assertEquals(
                12, f.path("location").path("line").asInt(), "the tarpit line inside the value");
        assertTrue(f.path("message").asString().contains("300"), f.path("message").asString());
        boolean read = false;
        for (JsonNode e : root.path("coverage").path("entries")) {
            read |=
                    e.path("source").asString().equals("haproxy")
                            && e.path("scope")
                                    .asString()
                                    .equals("ConfigMap edge/edge-haproxy#haproxy.cfg");
        }
        assertTrue(read, "coverage lists the ConfigMap key as read");
    }

    /**
     * A value written with YAML's '|-' loses its last newline: HAProxy 2.3+ refuses the mounted
     * file ("Missing LF on last line"), the CrashLoopBackOff of element-hq/ess-helm#821. A .cfg key
     * that opens no HAProxy section is another program's file: skipped, not a parse error for the
     * whole scan.
     */
    @Test
    void aValueWithoutItsLastNewlineIsRefusedAndANonHaproxyCfgKeyIsSkipped(@TempDir Path tmp)
            throws IOException {
        Path stripped = tmp.resolve("cm.yaml");
        Files.writeString(
                stripped,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: lb\n"
                        + "  namespace: edge\ndata:\n  haproxy.cfg: |-\n    global\n        maxconn 100\n"
                        + "    defaults\n        mode http\n");
        TestSupport.Run r = TestSupport.run("scan", stripped.toString());
        assertEquals(2, r.code(), r.out() + r.err());
        assertTrue(
                r.err()
                        .strip()
                        .equals(
                                "deja: ConfigMap edge/lb#haproxy.cfg:4: missing LF on last line: HAProxy 3.2"
                                        + " refuses the file (\"Missing LF on last line, file might have been truncated\", fatal since 2.3;"
                                        + " --haproxy-version sets the version); end the file with a newline (in a YAML ConfigMap: '|' keeps it,"
                                        + " '|-' strips it)"),
                r.err());
        Path other = tmp.resolve("other.yaml");
        Files.writeString(
                other,
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n"
                        + "  namespace: edge\ndata:\n  settings.cfg: |\n    log_level = debug\n");
        r = TestSupport.run("scan", "--format", "json", other.toString());
        assertTrue(r.code() == 0 || r.code() == 1, r.err());
        assertTrue(
                r.out().contains("ConfigMap edge/app#settings.cfg")
                        && r.out().contains("not a HAProxy configuration"),
                r.out());
    }
}
