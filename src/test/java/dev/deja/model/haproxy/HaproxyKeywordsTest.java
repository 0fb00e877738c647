package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * A keyword HAProxy does not know is not read silently as nothing: haproxy refuses the file
 * ("unknown keyword 'x' in 'frontend' section", fatal), and deja names the line in a warning and in
 * the report's notes. Keywords HAProxy knows give no note. Where the haproxy binary is installed,
 * it must refuse each line deja names and accept the file deja accepts.
 */
class HaproxyKeywordsTest {
    @TempDir Path tmp;

    static final String HEAD =
            "global\n    maxconn 100\n    stats socket /tmp/deja-kw.sock\n"
                    + "defaults\n    mode http\n    timeout connect 5s\n    timeout client 5s\n"
                    + "    timeout server 5s\n    timeout http-request 5s\n";

    static final String UNKNOWN =
            "global\n    maxconn 100\n    bogus_g 1\n"
                    + "defaults\n    mode http\n    timeout connect 5s\n    timeout client 5s\n"
                    + "    timeout server 5s\n    timeout http-request 5s\n"
                    + "frontend fe\n    bind 127.0.0.1:18481\n    option bogus\n"
                    + "    timeout bogus 5s\n    stats bogus\n    Maxconn 10\n    tune.bufsize 16384\n"
                    + "    no option httplog\n"
                    + "    default_backend be\n"
                    + "backend be\n    server s1 127.0.0.1:9000\n";

    @Test
    void everyUnknownKeywordIsNamedWithItsLine() throws Exception {
        Path p = tmp.resolve("unknown.cfg");
        Files.writeString(p, UNKNOWN);
        TestSupport.Run r = TestSupport.run("scan", p.toString(), "--format", "json");
        // notes do not fail the scan: the findings decide the exit code (none here)
        assertEquals(0, r.code(), r.out() + r.err());
        List<String> warnings = r.err().lines().filter(l -> l.contains("unknown keyword")).toList();
        String at = p + ":";
        assertEquals(
                List.of(
                        "deja: warning: " + at + "3: unknown keyword 'bogus_g' in 'global'",
                        "deja: warning: " + at + "12: unknown keyword 'option bogus' in 'frontend'",
                        "deja: warning: "
                                + at
                                + "13: unknown keyword 'timeout bogus' in 'frontend'",
                        "deja: warning: " + at + "14: unknown keyword 'stats bogus' in 'frontend'",
                        "deja: warning: " + at + "15: unknown keyword 'Maxconn' in 'frontend'",
                        "deja: warning: " + at + "16: unknown keyword 'tune.bufsize' in 'frontend'",
                        "deja: warning: "
                                + at
                                + "17: unknown keyword 'no option httplog' in 'frontend'"),
                warnings.stream().map(w -> w.substring(0, w.indexOf(" section"))).toList(),
                r.err());
        assertTrue(warnings.get(4).contains("(did you mean maxconn?)"), warnings.get(4));
        assertTrue(
                warnings.get(5).contains("(a keyword of the global section, not of proxies)"),
                warnings.get(5));
        // the report carries them too, as notes of the configuration
        JsonNode report = TestSupport.json(r.out());
        List<String> notes = new ArrayList<>();
        report.path("coverage")
                .path("entries")
                .forEach(
                        e -> {
                            if (e.path("detail").asString("").contains("unknown keyword")) {
                                notes.add(e.path("detail").asString());
                            }
                        });
        assertEquals(7, notes.size(), report.path("coverage").toString());
        assertTrue(notes.get(0).startsWith("line 3: unknown keyword 'bogus_g'"), notes.get(0));
        // haproxy refuses each of those lines
        List<Integer> refused = haproxyRefusedLines(p);
        if (refused != null) {
            assertEquals(List.of(3, 12, 13, 14, 15, 16, 17), refused);
        }
    }

    @Test
    void knownKeywordsGiveNoNote() throws Exception {
        Path p = tmp.resolve("known.cfg");
        Files.writeString(
                p,
                HEAD.replace("maxconn 100\n", "maxconn 100\n    unix-bind prefix /tmp\n")
                        + "    no option dontlognull\n    option httplog\n    log global\n"
                        + "frontend fe\n    bind 127.0.0.1:18482\n    maxconn 50\n"
                        + "    http-request deny deny_status 429 if { src 10.0.0.1 }\n"
                        + "    tcp-request inspect-delay 5s\n    tcp-request content accept\n"
                        + "    capture request header Host len 32\n    stats uri /stats\n"
                        + "    default_backend be\n"
                        + "backend be\n    balance roundrobin\n    option httpchk GET /health\n"
                        + "    http-check expect status 200\n    timeout queue 5s\n"
                        + "    server s1 127.0.0.1:9000 check\n");
        TestSupport.Run r = TestSupport.run("scan", p.toString());
        assertFalse(r.err().contains("unknown keyword"), r.err());
        assertFalse(r.out().contains("unknown keyword"), r.out());
        List<Integer> refused = haproxyRefusedLines(p);
        if (refused != null) {
            assertEquals(List.of(), refused, "haproxy -c accepts the file");
        }
    }

    /**
     * A proxy section without a name: haproxy refuses the file ("'frontend' expects an <id>
     * argument"), and so does deja, naming the line (exit 2), instead of reading nothing.
     */
    @Test
    void aProxySectionWithoutANameIsRefusedAsHaproxyRefusesIt() throws Exception {
        for (String kw : List.of("frontend", "backend", "listen")) {
            Path p = tmp.resolve("nameless-" + kw + ".cfg");
            Files.writeString(p, HEAD + kw + "\n    maxconn 10\n");
            int line = (int) HEAD.lines().count() + 1;
            TestSupport.Run r = TestSupport.run("scan", p.toString());
            assertEquals(2, r.code(), r.out() + r.err());
            assertEquals(
                    "deja: "
                            + p
                            + ":"
                            + line
                            + ": '"
                            + kw
                            + "' without a name: HAProxy refuses the file (\"'"
                            + kw
                            + "' expects an <id> argument\")",
                    r.err().strip());
            List<Integer> refused = haproxyRefusedLines(p);
            if (refused != null) {
                assertEquals(List.of(line), refused, "haproxy -c refuses the same line");
            }
        }
    }

    /**
     * On the corpus of real configurations: every line deja calls an unknown keyword, alone in a
     * section of its kind, is refused by haproxy.
     */
    @Test
    void onTheCorpusHaproxyRefusesEveryLineDejaNames() throws Exception {
        Path corpus = TestSupport.shared("corpus/haproxy");
        Assumptions.assumeTrue(haproxyInstalled(), "haproxy is not installed");
        Pattern warning =
                Pattern.compile(
                        "deja: warning: (.*):(\\d+): unknown keyword '.*?' in '(\\w+)' section");
        int named = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(corpus)) {
            files = s.filter(f -> f.toString().endsWith(".cfg")).sorted().toList();
        }
        for (Path f : files) {
            TestSupport.Run r = TestSupport.run("scan", f.toString(), "--format", "json");
            List<String> lines = Files.readAllLines(f, StandardCharsets.ISO_8859_1);
            for (String l : r.err().lines().toList()) {
                Matcher m = warning.matcher(l);
                if (!m.lookingAt()) {
                    continue;
                }
                named++;
                String kind = m.group(3);
                String header =
                        kind.equals("global") || kind.equals("defaults") ? kind : kind + " x";
                Path alone = tmp.resolve("alone.cfg");
                Files.writeString(
                        alone, header + "\n" + lines.get(Integer.parseInt(m.group(2)) - 1) + "\n");
                assertEquals(List.of(2), haproxyRefusedLines(alone), l);
            }
        }
        System.err.println("corpus: " + files.size() + " files, " + named + " unknown keywords");
    }

    static boolean haproxyInstalled() {
        try {
            Process p = new ProcessBuilder("haproxy", "-v").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** The lines haproxy -c alerts on, or null when haproxy is not installed. */
    static List<Integer> haproxyRefusedLines(Path p) throws Exception {
        if (!haproxyInstalled()) {
            System.err.println("haproxy is not installed: " + p + " is not checked with it");
            return null;
        }
        Process proc =
                new ProcessBuilder("haproxy", "-c", "-f", p.toString())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "haproxy -c timed out");
        Matcher m =
                Pattern.compile("ALERT.*parsing \\[" + Pattern.quote(p.toString()) + ":(\\d+)\\]")
                        .matcher(out);
        List<Integer> lines = new ArrayList<>();
        while (m.find()) {
            int line = Integer.parseInt(m.group(1));
            if (!lines.contains(line)) {
                lines.add(line);
            }
        }
        if (!lines.isEmpty()) {
            assertTrue(proc.exitValue() != 0, out);
        }
        return lines;
    }
}
