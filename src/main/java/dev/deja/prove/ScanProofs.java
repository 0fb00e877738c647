package dev.deja.prove;

import dev.deja.engine.Finding;
import dev.deja.engine.InputException;
import dev.deja.report.Evidence;
import dev.deja.source.InputFiles;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * {@code deja scan --prove}: replays the findings {@code deja prove} covers (per HAProxy file and
 * frontend, one proof each) and returns their evidence by finding fingerprint, for the reporters to
 * attach.
 */
public final class ScanProofs {
    private ScanProofs() {}

    /** Exit 2 with the install hint before the scan when there is no haproxy to replay on. */
    public static void checkHaproxy(String explicit, Map<String, String> env) {
        HaproxyBinary.locate(explicit, env);
    }

    public static Map<String, Evidence> attach(
            List<Finding> findings,
            Prover.Options options,
            Map<String, String> env,
            PrintWriter progress)
            throws IOException {
        Map<List<String>, List<Finding>> groups = new LinkedHashMap<>();
        for (Finding f : findings) {
            var l = f.location();
            if (Prover.RULES.contains(f.ruleId())
                    && l.file() != null
                    && l.key() == null
                    && l.name() != null
                    && ("frontend".equals(l.kind()) || "listen".equals(l.kind()))
                    && Files.isRegularFile(Path.of(l.file()))) {
                groups.computeIfAbsent(List.of(l.file(), l.name()), k -> new ArrayList<>()).add(f);
            }
        }
        Map<String, Evidence> out = new HashMap<>();
        HaproxyBinary hb = HaproxyBinary.locate(options.haproxy(), env);
        for (Map.Entry<List<String>, List<Finding>> g : groups.entrySet()) {
            String file = g.getKey().get(0);
            String frontend = g.getKey().get(1);
            TreeSet<String> rules = new TreeSet<>();
            g.getValue().forEach(f -> rules.add(f.ruleId()));
            Prover.Options o =
                    new Prover.Options(
                            frontend,
                            rules.size() == 1 ? rules.first() : null,
                            options.durationMs(),
                            options.clientRps(),
                            options.legitRps(),
                            options.legitTimeoutMs(),
                            options.serviceTimeMs(),
                            options.findLimit(),
                            options.haproxy());
            progress.println(
                    "deja: proving "
                            + g.getValue().size()
                            + " finding(s) of "
                            + file
                            + " frontend "
                            + frontend
                            + " on haproxy");
            progress.flush();
            ProveReport report;
            try {
                report =
                        new Prover(o, hb, progress, () -> false, env)
                                .run(file, InputFiles.read(Path.of(file), file).text());
            } catch (InputException e) {
                for (Finding f : g.getValue()) {
                    Proof p = Proof.couldNotRun(f.ruleId(), frontend, e.getMessage());
                    ProveReport r =
                            new ProveReport(
                                    file, frontend, hb.version(), null, "", List.of(), List.of(p));
                    out.put(f.fingerprint(), evidence(r, p));
                }
                continue;
            }
            for (Finding f : g.getValue()) {
                for (Proof p : report.proofs()) {
                    if (p.ruleId().equals(f.ruleId())) {
                        out.put(f.fingerprint(), evidence(report, p));
                    }
                }
            }
        }
        return out;
    }

    private static Evidence evidence(ProveReport r, Proof p) {
        String summary =
                p.headline().toLowerCase(java.util.Locale.ROOT)
                        + " on HAProxy "
                        + r.haproxyVersion()
                        + ": "
                        + p.reason()
                        + (p.fixNote() == null ? "" : "; " + p.fixNote());
        return new Evidence(p.verdict(), summary, r.evidence(p), r.evidenceHtml(p));
    }
}
