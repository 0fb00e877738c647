package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import io.fabric8.kubernetes.api.model.ConfigMap;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled scan's HTML report outlives its pod: it is kept gzip-compressed in the report
 * ConfigMap (binaryData report.html.gz) and {@code deja report --from-configmap NS/NAME -o
 * report.html} fetches it; the page says when it was scanned, which cluster and context, the scope
 * and deja's version. Against the mock API server.
 */
class ReportConfigMapHtmlTest {
    @TempDir Path tmp;

    @Test
    void theLastHtmlReportIsKeptAndFetched() throws IOException {
        try (MockCluster c = new MockCluster()) {
            String kc = c.kubeconfig(tmp).toString();
            c.apply(Path.of("examples/kubernetes/il-0495-risky-ingress.yaml"), "edge");
            c.apply(Path.of("examples/kubernetes/cronjob/report-configmap.yaml"), null);
            // the shipped ConfigMap before any run: there, but no report in it
            TestSupport.Run none =
                    TestSupport.run(
                            "report", "--from-configmap", "deja/deja-report", "--kubeconfig", kc);
            assertEquals(2, none.code(), none.err());
            assertTrue(
                    none.err().contains("configmap deja/deja-report: holds no HTML report"),
                    none.err());

            TestSupport.Run scan =
                    TestSupport.run(
                            "scan",
                            "--cluster",
                            "--kubeconfig",
                            kc,
                            "-n",
                            "edge",
                            "--fail-on",
                            "none",
                            "--report-configmap",
                            "deja/deja-report");
            assertEquals(0, scan.code(), scan.err());
            ConfigMap cm = c.client.configMaps().inNamespace("deja").withName("deja-report").get();
            String b64 = cm.getBinaryData().get("report.html.gz");
            byte[] gz = Base64.getDecoder().decode(b64);
            String kept;
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gz))) {
                kept = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertTrue(
                    gz.length * 3 < kept.length(),
                    "compressed: " + gz.length + " of " + kept.length());
            assertTrue(
                    cm.getData().get("summary.txt").contains("html: report.html.gz ("),
                    cm.getData().get("summary.txt"));
            assertTrue(
                    cm.getData()
                            .get("summary.txt")
                            .contains(
                                    "deja report --from-configmap deja/deja-report -o"
                                            + " report.html"),
                    cm.getData().get("summary.txt"));

            Path out = tmp.resolve("fetched/report.html");
            TestSupport.Run fetch =
                    TestSupport.run(
                            "report",
                            "--from-configmap",
                            "deja/deja-report",
                            "--kubeconfig",
                            kc,
                            "-o",
                            out.toString());
            assertEquals(0, fetch.code(), fetch.err());
            String html = Files.readString(out);
            assertEquals(kept, html);
            assertTrue(html.startsWith("<!DOCTYPE html>"), html.substring(0, 40));
            assertTrue(html.contains("data-rule=\"k8s-"), "the findings are in it");
            // when, where, what and by which deja
            assertTrue(
                    html.matches(
                            "(?s).*<dt>scanned</dt><dd>\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC</dd>.*"),
                    html);
            assertTrue(html.contains("<dt>cluster</dt><dd>context mock (" + c.url()), html);
            assertTrue(html.contains("<dt>namespaces</dt><dd>edge</dd>"), html);
            assertTrue(
                    html.contains(
                            "<dt>deja</dt><dd>"
                                    + cm.getMetadata().getAnnotations().get("deja.dev/version")
                                    + "</dd>"),
                    html);
        }
    }

    @Test
    void aMissingConfigMapIsOneLine() throws IOException {
        try (MockCluster c = new MockCluster()) {
            TestSupport.Run r =
                    TestSupport.run(
                            "report",
                            "--from-configmap",
                            "deja/nothing-here",
                            "--kubeconfig",
                            c.kubeconfig(tmp).toString());
            assertEquals(2, r.code(), r.err());
            assertEquals(
                    "deja: configmap deja/nothing-here: not found (a scan with --report-configmap deja/nothing-here"
                            + " creates it)",
                    r.err().strip());
        }
        TestSupport.Run bad = TestSupport.run("report", "--from-configmap", "no-slash");
        assertEquals(2, bad.code());
        assertTrue(bad.err().contains("expected NAMESPACE/NAME"), bad.err());
    }
}
