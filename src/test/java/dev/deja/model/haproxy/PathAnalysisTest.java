package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Catalog;
import dev.deja.engine.Engine;
import dev.deja.engine.Finding;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Snapshot;
import dev.deja.engine.SourceKind;
import dev.deja.rules.RuleRegistry;
import dev.deja.source.ScanRequest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Undecided .if branches: every path is analysed, and findings say on which path they hold. */
class PathAnalysisTest {
    static final String HEAD = "global\n  maxconn 1000\n";
    static final String TAIL =
            "frontend fe\n  bind :80\n  default_backend be\nbackend be\n  server s 127.0.0.1:1\n";

    static List<Finding> scan(String text, String rule) {
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv = Map.of();
        ScanRequest req = reqB.build();
        HaproxyConfig c = HaproxyParser.parse("p.cfg", text, req.haproxyParsing());
        ScanResult r =
                new Engine(Catalog.packaged())
                        .run(
                                Snapshot.of(new HaproxyConfigs(List.of(c))),
                                RuleRegistry.of(SourceKind.HAPROXY).stream()
                                        .filter(x -> x.id().equals(rule))
                                        .toList(),
                                Engine.Options.defaults());
        return r.findings();
    }

    @Test
    void aSettingInEveryBranchCoversEveryPath() {
        String text =
                HEAD
                        + "  stats socket /tmp/s\ndefaults\n  mode http\n  timeout client 10s\n"
                        + ".if defined(PROD)\n  timeout http-request 5s\n.else\n  timeout http-request 10s\n.endif\n"
                        + TAIL;
        assertEquals(List.of(), scan(text, "haproxy-missing-http-request-timeout"));
    }

    @Test
    void aSettingInOneBranchLeavesThePathWithoutIt() {
        String text =
                HEAD
                        + "defaults\n  mode http\n  timeout client 10s\n"
                        + ".if defined(PROD)\n  timeout http-request 5s\n.endif\n"
                        + TAIL;
        List<Finding> f = scan(text, "haproxy-missing-http-request-timeout");
        assertEquals(1, f.size(), f.toString());
        assertTrue(
                f.get(0)
                        .notes()
                        .get(0)
                        .startsWith("on the path where no branch of the .if at p.cfg:6 is taken"),
                f.get(0).notes().toString());
    }

    @Test
    void tarpitArithmeticPerPath() {
        String text =
                HEAD
                        + "defaults\n  mode http\n  timeout http-request 5s\n"
                        + ".if streq(\"$SIZE\",big)\n  timeout tarpit 2s\n.else\n  timeout tarpit 100ms\n.endif\n"
                        + "frontend fe\n  bind :80\n  http-request tarpit if { src_http_req_rate gt 10 }\n";
        List<Finding> f = scan(text, "haproxy-tarpit-holds-slots");
        assertEquals(2, f.size(), f.toString());
        assertTrue(
                f.stream().anyMatch(x -> x.message().contains("holds 600 of 1000 slots (60%")),
                f.toString());
        assertTrue(
                f.stream().anyMatch(x -> x.message().contains("holds 30 of 1000 slots (3%")),
                f.toString());
        assertTrue(
                f.stream().allMatch(x -> x.notes().get(0).startsWith("on the path where")),
                f.toString());
    }

    @Test
    void aFindingThatHoldsOnEveryPathCarriesNoPathNote() {
        String text =
                HEAD
                        + "defaults\n  mode http\n  timeout tarpit 1s\n"
                        + ".if defined(PROD)\n  timeout http-request 5s\n.endif\n"
                        + "frontend fe\n  bind :80\n  http-request tarpit if { src_http_req_rate gt 10 }\n";
        List<Finding> f = scan(text, "haproxy-tarpit-holds-slots");
        assertEquals(1, f.size(), f.toString());
        assertEquals(
                List.of(), f.get(0).notes(), "the two paths differ only in timeout http-request");
    }

    @Test
    void tooManyPathsFallBackToReadingEveryBranch() {
        StringBuilder sb =
                new StringBuilder(HEAD + "  stats socket /tmp/s\ndefaults\n  mode http\n");
        for (int i = 0; i < 10; i++) {
            sb.append(".if defined(V")
                    .append(i)
                    .append(")\n  timeout client ")
                    .append(i + 1)
                    .append("s\n.endif\n");
        }
        sb.append(TAIL);
        ScanRequest.Builder reqB = ScanRequest.builder();
        reqB.processEnv = Map.of();
        ScanRequest req = reqB.build();
        HaproxyConfig c = HaproxyParser.parse("p.cfg", sb.toString(), req.haproxyParsing());
        assertEquals(10, c.undecided().size());
        assertEquals(1, Frontends.of(c).size(), "2^10 paths: one view with every branch read");
        assertEquals(null, Frontends.of(c).get(0).path());
        List<Finding> f = scan(sb.toString(), "haproxy-missing-http-request-timeout");
        assertEquals(1, f.size());
        assertTrue(
                f.get(0).notes().stream().anyMatch(n -> n.contains("could not decide")),
                f.get(0).notes().toString());
    }

    @Test
    void statsSocketOnlyUnderAnUndecidedCondition() {
        String one = HEAD + ".if defined(DEBUG)\n  stats socket /tmp/s\n.endif\n" + TAIL;
        List<Finding> f = scan(one, "haproxy-no-saturation-visibility");
        assertEquals(1, f.size());
        assertTrue(
                f.get(0).notes().get(0).contains("no branch of the .if at p.cfg:3 is taken"),
                f.get(0).notes().toString());
        String both =
                HEAD
                        + ".if defined(DEBUG)\n  stats socket /tmp/a\n.else\n  stats socket /tmp/b\n.endif\n"
                        + TAIL;
        assertEquals(List.of(), scan(both, "haproxy-no-saturation-visibility"));
    }
}
