package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpServer;
import dev.deja.TestSupport;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A live scan through a real {@code kubectl proxy} (kubeconfig {@code server:
 * http://127.0.0.1:PORT}) in front of Fabric8's mock API server. The JDK client's default (HTTP/2)
 * sends {@code Upgrade: h2c} on plain http, which the proxy answers with an error for every list:
 * deja must speak HTTP/1.1 to http:// servers.
 */
class KubectlProxyTest {
    @TempDir Path tmp;

    static Path kubectl() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, "kubectl");
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    @Test
    void clusterScanWorksThroughKubectlProxy() throws Exception {
        Path kubectl = kubectl();
        assumeTrue(kubectl != null, "kubectl is not on PATH: skipping the kubectl proxy test");
        AtomicBoolean authenticate = new AtomicBoolean();
        List<String> seen = new CopyOnWriteArrayList<>();
        // a real API server authenticates every request: the mock answers 401 to one without the
        // kubeconfig's token
        try (MockCluster cluster =
                new MockCluster(
                        req -> {
                            String auth = req.getHeader("Authorization");
                            String upgrade = req.getHeader("Upgrade");
                            seen.add(
                                    req.getMethod()
                                            + " "
                                            + req.getPath()
                                            + " auth="
                                            + (auth != null)
                                            + " upgrade="
                                            + upgrade);
                            return !authenticate.get() || "Bearer not-a-real-token".equals(auth)
                                    ? null
                                    : MockCluster.status(401, "Unauthorized", "Unauthorized");
                        })) {
            cluster.apply(
                    Path.of(
                            "src/test/resources/fixtures/k8s-lb-no-disruption-headroom/single-replica-no-pdb.yaml"),
                    "proxied");
            authenticate.set(true);
            Path upstream = cluster.kubeconfig(tmp);
            Process proxy =
                    new ProcessBuilder(
                                    kubectl.toString(),
                                    "proxy",
                                    "--kubeconfig",
                                    upstream.toString(),
                                    "--port=0",
                                    "--address=127.0.0.1")
                            .redirectErrorStream(true)
                            .start();
            try {
                BufferedReader out =
                        new BufferedReader(
                                new InputStreamReader(
                                        proxy.getInputStream(), StandardCharsets.UTF_8));
                CompletableFuture<String> firstLine =
                        CompletableFuture.supplyAsync(
                                () -> {
                                    try {
                                        return out.readLine();
                                    } catch (IOException e) {
                                        return null;
                                    }
                                });
                String line = firstLine.get(60, TimeUnit.SECONDS);
                Matcher m =
                        Pattern.compile("Starting to serve on 127\\.0\\.0\\.1:(\\d+)")
                                .matcher(String.valueOf(line));
                assumeTrue(m.find(), "kubectl proxy did not start: " + line);
                // keep draining the proxy's output so that it never blocks on a full pipe
                Thread drain =
                        new Thread(
                                () -> {
                                    try {
                                        while (out.readLine() != null) {
                                            // discard
                                        }
                                    } catch (IOException ignored) {
                                        // the process ended
                                    }
                                },
                                "kubectl-proxy-drain");
                drain.setDaemon(true);
                drain.start();
                Path viaProxy =
                        MockCluster.writeKubeconfig(
                                tmp.resolve("kubeconfig-proxy"),
                                "proxy",
                                "http://127.0.0.1:" + m.group(1));
                TestSupport.Run r =
                        TestSupport.run(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                viaProxy.toString(),
                                "-n",
                                "proxied",
                                "--format",
                                "json");
                assertEquals(1, r.code(), r.err() + r.out() + seen);
                assertTrue(
                        r.out().contains("\"complete\" : true")
                                || r.out().contains("\"complete\":true"),
                        r.out());
                assertTrue(r.out().contains("k8s-lb-no-disruption-headroom"), r.out());
            } finally {
                proxy.destroy();
                if (!proxy.waitFor(10, TimeUnit.SECONDS)) {
                    proxy.destroyForcibly();
                }
            }
        }
    }

    /**
     * The same scan through a loopback forwarder that, as {@code kubectl proxy} does in front of a
     * real API server, answers 500 to every request asking for a protocol upgrade (the mock server
     * itself accepts {@code h2c}, so the test above passes either way). The forwarder speaks
     * HTTP/1.1 to the mock.
     */
    @Test
    void plainHttpServerIsSpokenToInHttp11() throws Exception {
        AtomicInteger upgrades = new AtomicInteger();
        try (MockCluster cluster = new MockCluster()) {
            cluster.apply(
                    Path.of(
                            "src/test/resources/fixtures/k8s-lb-no-disruption-headroom/single-replica-no-pdb.yaml"),
                    "proxied");
            HttpClient upstream =
                    HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpServer fwd =
                    HttpServer.create(
                            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            fwd.createContext(
                    "/",
                    ex -> {
                        byte[] body;
                        int code;
                        if (ex.getRequestHeaders().containsKey("Upgrade")) {
                            upgrades.incrementAndGet();
                            code = 500;
                            body = "upgrade request rejected".getBytes(StandardCharsets.UTF_8);
                        } else {
                            try {
                                HttpResponse<byte[]> resp =
                                        upstream.send(
                                                HttpRequest.newBuilder(
                                                                URI.create(
                                                                        cluster.url()
                                                                                + ex
                                                                                        .getRequestURI()))
                                                        .GET()
                                                        .build(),
                                                HttpResponse.BodyHandlers.ofByteArray());
                                code = resp.statusCode();
                                body = resp.body();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                code = 502;
                                body = new byte[0];
                            }
                        }
                        ex.getResponseHeaders().add("Content-Type", "application/json");
                        ex.sendResponseHeaders(code, body.length == 0 ? -1 : body.length);
                        try (OutputStream os = ex.getResponseBody()) {
                            os.write(body);
                        }
                    });
            fwd.start();
            try {
                Path kc =
                        MockCluster.writeKubeconfig(
                                tmp.resolve("kubeconfig-fwd"),
                                "fwd",
                                "http://127.0.0.1:" + fwd.getAddress().getPort());
                TestSupport.Run r =
                        TestSupport.run(
                                "scan",
                                "--cluster",
                                "--kubeconfig",
                                kc.toString(),
                                "-n",
                                "proxied",
                                "--format",
                                "json");
                assertEquals(0, upgrades.get(), "requests with an Upgrade header");
                assertEquals(1, r.code(), r.err() + r.out());
                assertTrue(r.out().contains("k8s-lb-no-disruption-headroom"), r.out());
            } finally {
                fwd.stop(0);
            }
        }
    }
}
