package dev.deja.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 17 (6): control characters never reach a terminal or a page raw; variables' values are
 * never printed.
 */
class UntrustedTextTest {
    @TempDir Path tmp;

    @Test
    void controlCharactersInNamesAreNotWrittenRaw() throws Exception {
        Path cfg = tmp.resolve("h.cfg");
        Files.writeString(
                cfg,
                "global\n  maxconn 100\ndefaults\n  mode http\n  timeout client 5s\n  timeout server 5s\n"
                        + "  timeout connect 5s\nfrontend \"fe\\x1b[2J\\x07\\x1b]0;owned\\x07\"\n  bind :80\n  default_backend b\n"
                        + "backend b\n  server s 127.0.0.1:8080\n");
        for (String format : new String[] {"text", "html"}) {
            TestSupport.Run r = TestSupport.run("scan", "--format", format, cfg.toString());
            assertEquals(1, r.code(), r.err());
            assertFalse(
                    r.out().contains("\u001b") || r.out().contains("\u0007"),
                    format + ": " + r.out());
            assertTrue(r.out().contains("fe"), r.out());
        }
    }

    @Test
    void printableKeepsOnlyColourCodesWhenColourIsOn() throws Exception {
        StringWriter on = new StringWriter();
        try (TextReporter.Printable p = new TextReporter.Printable(on, true)) {
            p.write("\u001b[1mbold\u001b[0m \u001b[2Jclear \u001b]0;t\u0007 tab\tnl\n\u009b");
        }
        assertEquals("\u001b[1mbold\u001b[0m ?clear ?0;t? tab\tnl\n?", on.toString());
        StringWriter off = new StringWriter();
        try (TextReporter.Printable p = new TextReporter.Printable(off, false)) {
            p.write("\u001b[1mbold");
        }
        assertEquals("?bold", off.toString());
    }

    /**
     * Runs of plain characters go through in one write: the result is the same as writing each
     * character alone, whatever the split across writes (escape sequences cut in two included).
     */
    @Test
    void bulkWritesFilterLikeOneCharacterAtATime() throws Exception {
        char[] alphabet = {
            'a', ' ', 'm', '[', ';', '0', '7', '\n', '\t', '\r', '\u0007', '\u001b', '\u007f',
            '\u0085', '\u009b', '\u00e9', '\u4e2d'
        };
        Random rnd = new Random(17);
        for (int round = 0; round < 2000; round++) {
            StringBuilder sb = new StringBuilder();
            int n = rnd.nextInt(40);
            for (int i = 0; i < n; i++) {
                sb.append(rnd.nextInt(4) == 0 ? "\u001b[1;31m" : "")
                        .append(alphabet[rnd.nextInt(alphabet.length)]);
            }
            String text = sb.toString();
            boolean colour = rnd.nextBoolean();
            StringWriter one = new StringWriter();
            try (TextReporter.Printable p = new TextReporter.Printable(one, colour)) {
                for (int i = 0; i < text.length(); i++) {
                    p.write(text.charAt(i));
                }
            }
            StringWriter bulk = new StringWriter();
            try (TextReporter.Printable p = new TextReporter.Printable(bulk, colour)) {
                int at = 0;
                while (at < text.length()) {
                    int k = Math.min(text.length() - at, 1 + rnd.nextInt(8));
                    if (rnd.nextBoolean()) {
                        p.write(text, at, k);
                    } else {
                        p.write(text.toCharArray(), at, k);
                    }
                    at += k;
                }
            }
            assertEquals(one.toString(), bulk.toString(), "colour " + colour + ": " + text);
        }
    }

    @Test
    void aVariablesValueIsNeverPrinted() throws Exception {
        Path bad = tmp.resolve("bad.cfg");
        Files.writeString(
                bad, "global\n  maxconn 10\n.if streq(\"${DB_PASSWORD}\",\"x\") &&\n.endif\n");
        Map<String, String> env = Map.of("DB_PASSWORD", "hunter2-secret");
        TestSupport.Run r =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]), env, "scan", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + bad
                        + ":3: cannot evaluate condition 'streq(\"${DB_PASSWORD}\",\"x\") &&' (the values of"
                        + " its variables are not shown)\n",
                r.err());
        Path notice = tmp.resolve("notice.cfg");
        Files.writeString(
                notice,
                "global\n  maxconn 10\n  stats socket /run/h.sock\n.notice \"password ${DB_PASSWORD}\"\n"
                        + ".if streq(\"${DB_PASSWORD}\",\"y\")\n.endif\ndefaults\n  mode http\n");
        TestSupport.Run v =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        env,
                        "scan",
                        "--verbose",
                        "--format",
                        "json",
                        notice.toString());
        assertFalse((v.out() + v.err()).contains("hunter2"), v.out() + v.err());
        assertTrue((v.out() + v.err()).contains("password ${DB_PASSWORD}"), v.out() + v.err());
    }

    /**
     * Issue 17 (6): findings quote directives as written: a secret given in the environment (or
     * with --env) and used in a rule a finding quotes shows as ${API_SECRET} in every format, while
     * the rules still read its value.
     */
    @Test
    void findingsQuoteDirectivesAsWrittenNeverAVariablesValue() throws Exception {
        Path cfg = tmp.resolve("secret.cfg");
        Files.writeString(
                cfg,
                """
                global
                  maxconn 1000
                  stats socket /run/h.sock
                defaults
                  mode http
                  timeout client 5s
                  timeout server 5s
                  timeout connect 5s
                  timeout http-request 5s
                  timeout tarpit "${TARPIT}"
                frontend web
                  bind :80
                  acl internal hdr(host) -i "${INTERNAL_HOST}"
                  stick-table type ip size 100k expire 30s store http_req_rate(10s)
                  http-request track-sc0 src if internal
                  http-request deny if internal { sc_http_req_rate(0) gt "${RATE_SECRET}" }
                  http-request tarpit if { hdr(x-token) -m str "${API_SECRET}" }
                  use_backend app if internal
                  default_backend app
                backend app
                  server s1 "${DB_HOST}":8080
                """);
        Map<String, String> env =
                Map.of(
                        "API_SECRET",
                        "hunter2-api",
                        "INTERNAL_HOST",
                        "intranet-hunter2.example",
                        "RATE_SECRET",
                        "7771234",
                        "DB_HOST",
                        "10.99.99.99",
                        "TARPIT",
                        "10s");
        String[] secrets = {"hunter2", "7771234", "10.99.99.99"};
        for (String format :
                new String[] {
                    "text", "table", "json", "sarif", "junit", "html", "prometheus", "github"
                }) {
            TestSupport.Run r =
                    TestSupport.runWith(
                            new ByteArrayInputStream(new byte[0]),
                            env,
                            "scan",
                            "--format",
                            format,
                            "--verbose",
                            cfg.toString());
            assertEquals(1, r.code(), format + ": " + r.err());
            for (String s : secrets) {
                assertFalse(
                        r.out().contains(s) || r.err().contains(s),
                        format + " shows " + s + ": " + r.out() + r.err());
            }
        }
        TestSupport.Run json =
                TestSupport.runWith(
                        new ByteArrayInputStream(new byte[0]),
                        Map.of(),
                        "scan",
                        "--format",
                        "json",
                        "--env",
                        "API_SECRET=hunter2-api",
                        "--env",
                        "INTERNAL_HOST=intranet-hunter2.example",
                        "--env",
                        "RATE_SECRET=7771234",
                        "--env",
                        "TARPIT=10s",
                        "--env",
                        "DB_HOST=10.99.99.99",
                        cfg.toString());
        assertEquals(1, json.code(), json.err());
        for (String s : secrets) {
            assertFalse(json.out().contains(s), json.out());
        }
        Map<String, String> messages = new TreeMap<>();
        TestSupport.json(json.out())
                .get("findings")
                .forEach(
                        f -> messages.put(f.get("ruleId").asString(), f.get("message").asString()));
        assertEquals(
                Set.of("haproxy-tarpit-holds-slots", "haproxy-rate-limit-not-everywhere"),
                messages.keySet(),
                json.out());
        String tarpit = messages.get("haproxy-tarpit-holds-slots");
        assertTrue(
                tarpit.contains("'http-request tarpit if { hdr(x-token) -m str ${API_SECRET} }'"),
                tarpit);
        assertTrue(
                tarpit.contains("holds each request 10s"),
                "the rule read the variable's value: " + tarpit);
        String limit = messages.get("haproxy-rate-limit-not-everywhere");
        assertTrue(
                limit.contains("only requests for internal (${INTERNAL_HOST})")
                        && limit.contains("gt ${RATE_SECRET} }'"),
                limit);
    }

    /**
     * Diagnostics on stderr pass no escape sequence either: a file's name, a .notice, a .warning.
     */
    @Test
    void stderrPassesNoControlCharacters() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("esc"));
        Path named = dir.resolve("a\u001b[2Jb.cfg");
        Files.writeString(named, "global\n  maxconn 10\n\u0000\n");
        TestSupport.Run r = TestSupport.run("scan", dir.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + dir.resolve("a?b.cfg")
                        + ":3: binary file (NUL byte), not a configuration or manifest\n",
                r.err());
        Path notice = tmp.resolve("notice.cfg");
        Files.writeString(
                notice,
                "global\n  maxconn 10\n  stats socket /run/h.sock\n.notice \"hi \\x1b[2J there\"\n"
                        + ".warning \"w\\x1b]0;title\\x07\"\ndefaults\n  mode http\n");
        TestSupport.Run v =
                TestSupport.run("scan", "--verbose", "--format", "json", notice.toString());
        assertFalse(v.err().contains("\u001b") || v.err().contains("\u0007"), v.err());
        assertTrue(v.err().contains("hi ? there"), v.err());
    }
}
