package dev.deja.report;

import dev.deja.cli.Cli;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Writes the input of src/bench/merge-bench.sh (not a test): REPORTS scan reports of FINDINGS
 * findings each, one per cluster folder (DIR/cluster-0001/2026-...json), made from the findings of
 * a real scan of examples/kubernetes with their objects renamed: two thirds of each report's
 * findings are the same on every cluster (a shared chart), one third are the cluster's own.
 * Modification times are spread over the last 60 hours (some targets stale). Usage: MergeBench DIR
 * [REPORTS [FINDINGS]]
 */
public final class MergeBench {
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int reports = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int perReport = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        StringWriter out = new StringWriter();
        int code =
                Cli.run(
                        new Cli.Io(
                                new PrintWriter(out),
                                new PrintWriter(new StringWriter()),
                                new ByteArrayInputStream(new byte[0]),
                                Map.of(),
                                false),
                        "scan",
                        "examples/kubernetes",
                        "--format",
                        "json");
        if (code > 1) {
            throw new IllegalStateException("scan of examples/kubernetes exited " + code);
        }
        JsonMapper mapper = JsonMapper.builder().build();
        ObjectNode base = (ObjectNode) mapper.readTree(out.toString());
        ArrayNode templates = (ArrayNode) base.get("findings");
        Instant now = Instant.now();
        long bytes = 0;
        for (int r = 0; r < reports; r++) {
            String cluster = String.format("cluster-%04d", r);
            ObjectNode rep = base.deepCopy();
            ArrayNode fs = rep.putArray("findings");
            for (int i = 0; i < perReport; i++) {
                ObjectNode f = ((ObjectNode) templates.get(i % templates.size())).deepCopy();
                boolean shared = i < perReport * 2 / 3;
                String ns = shared ? "team-" + i : cluster + "-team-" + i;
                ObjectNode loc = (ObjectNode) f.get("location");
                String oldNs = loc.path("namespace").asString("");
                loc.put("namespace", ns);
                f.put("object", f.path("object").asString().replace(oldNs + "/", ns + "/"));
                f.put("message", f.path("message").asString().replace(oldNs + "/", ns + "/"));
                f.put("fingerprint", f.path("fingerprint").asString() + "|" + ns);
                fs.add(f);
            }
            ObjectNode summary = (ObjectNode) rep.get("summary");
            summary.put("total", perReport);
            Path p = dir.resolve(cluster).resolve("2026-01-01-031700.json");
            Files.createDirectories(p.getParent());
            byte[] b = mapper.writerWithDefaultPrettyPrinter().writeValueAsBytes(rep);
            Files.write(p, b);
            bytes += b.length;
            Files.setLastModifiedTime(
                    p, FileTime.from(now.minus(Duration.ofMinutes((r * 37L) % 3600))));
        }
        System.out.printf(
                "merge-bench: %d reports of %d findings (%d templates), %.1f MB in %s%n",
                reports, perReport, templates.size(), bytes / 1e6, dir);
    }
}
