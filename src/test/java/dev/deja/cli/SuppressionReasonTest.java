package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.TestSupport.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One rule for every way of suppressing a finding: a reason is required. The ignore file, a {@code
 * # deja:ignore} comment in a haproxy.cfg and a {@code deja.dev/ignore} annotation in a manifest
 * without one are all input errors naming the file and line (exit 2); with one, each suppresses.
 */
class SuppressionReasonTest {
    static final String TARPIT =
            "global\n  maxconn 800\ndefaults\n  mode http\n  timeout tarpit 1s\n"
                    + "  timeout client 10s\n  timeout http-request 5s\n  stats socket /tmp/s\n"
                    + "frontend fe\n  bind :80\n  http-request track-sc0 src\n"
                    + "  stick-table type ip size 1k store http_req_rate(1s)\n"
                    + "%s  http-request tarpit if { sc_http_req_rate(0) gt 20 }\n  default_backend be\n"
                    + "backend be\n  server s 127.0.0.1:1\n";

    static final String MANIFEST =
            """
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: web
              namespace: shop
              annotations:
                deja.dev/ignore: "%s"
            spec:
              replicas: 1
              selector: {matchLabels: {app: web}}
              template:
                metadata: {labels: {app: web}}
                spec:
                  containers:
                    - name: envoy
                      image: envoyproxy/envoy:v1.31.0
            """;

    @TempDir Path tmp;

    @Test
    void ignoreFileEntryWithoutReasonIsRefused() throws Exception {
        Path cfg = tmp.resolve("haproxy.cfg");
        Files.writeString(cfg, TARPIT.formatted(""));
        Path ignore = tmp.resolve("ignore.yaml");
        Files.writeString(ignore, "- rule: haproxy-tarpit-holds-slots\n  object: '*'\n");
        Run r = TestSupport.run("scan", cfg.toString(), "--ignore-file", ignore.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("has no 'reason'"), r.err());
    }

    @Test
    void haproxyCommentWithoutReasonIsRefusedLikeTheIgnoreFile() throws Exception {
        Path cfg = tmp.resolve("haproxy.cfg");
        Files.writeString(cfg, TARPIT.formatted("  # deja:ignore haproxy-tarpit-holds-slots\n"));
        Run r = TestSupport.run("scan", cfg.toString());
        assertEquals(2, r.code(), r.err() + r.out());
        assertEquals(
                "deja: "
                        + cfg
                        + ":13: deja:ignore haproxy-tarpit-holds-slots gives no reason (write"
                        + " '# deja:ignore <rule-id> <reason>': why the risk is accepted)",
                r.err().strip());

        Files.writeString(
                cfg,
                TARPIT.formatted(
                        "  # deja:ignore haproxy-tarpit-holds-slots internal clients only\n"));
        r = TestSupport.run("scan", cfg.toString(), "--format", "json", "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        JsonNode report = JsonMapper.builder().build().readTree(r.out());
        for (JsonNode f : report.path("findings")) {
            assertTrue(
                    !f.path("ruleId").asString().equals("haproxy-tarpit-holds-slots"),
                    f.toString());
        }
        assertTrue(
                r.out().contains("internal clients only"),
                "the reason is in the report: " + r.out());
    }

    @Test
    void annotationWithoutReasonInAManifestIsRefused() throws Exception {
        Path m = tmp.resolve("web.yaml");
        Files.writeString(m, MANIFEST.formatted("k8s-lb-no-disruption-headroom"));
        Run r = TestSupport.run("scan", m.toString());
        assertEquals(2, r.code(), r.err() + r.out());
        assertTrue(r.err().startsWith("deja: " + m + ":1: deja.dev/ignore on "), r.err());
        assertTrue(r.err().contains("gives no reason"), r.err());

        Files.writeString(
                m, MANIFEST.formatted("k8s-lb-no-disruption-headroom single replica by design"));
        r = TestSupport.run("scan", m.toString(), "--fail-on", "none");
        assertEquals(0, r.code(), r.err());
        assertTrue(!r.err().contains("no reason"), r.err());
    }
}
