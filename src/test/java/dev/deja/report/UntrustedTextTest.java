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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17 (6): control characters never reach a terminal or a page raw; variables' values are never printed. */
class UntrustedTextTest {
    @TempDir
    Path tmp;

    @Test
    void controlCharactersInNamesAreNotWrittenRaw() throws Exception {
        Path cfg = tmp.resolve("h.cfg");
        Files.writeString(cfg, "global\n  maxconn 100\ndefaults\n  mode http\n  timeout client 5s\n  timeout server 5s\n"
                + "  timeout connect 5s\nfrontend \"fe\\x1b[2J\\x07\\x1b]0;owned\\x07\"\n  bind :80\n  default_backend b\n"
                + "backend b\n  server s 127.0.0.1:8080\n");
        for (String format : new String[] {"text", "html"}) {
            TestSupport.Run r = TestSupport.run("scan", "--format", format, cfg.toString());
            assertEquals(1, r.code(), r.err());
            assertFalse(r.out().contains("\u001b") || r.out().contains("\u0007"), format + ": " + r.out());
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

    @Test
    void aVariablesValueIsNeverPrinted() throws Exception {
        Path bad = tmp.resolve("bad.cfg");
        Files.writeString(bad, "global\n  maxconn 10\n.if streq(\"${DB_PASSWORD}\",\"x\") &&\n.endif\n");
        Map<String, String> env = Map.of("DB_PASSWORD", "hunter2-secret");
        TestSupport.Run r = TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env, "scan", bad.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals("deja: " + bad + ":3: cannot evaluate condition 'streq(\"${DB_PASSWORD}\",\"x\") &&' (the values of"
                + " its variables are not shown)\n", r.err());
        Path notice = tmp.resolve("notice.cfg");
        Files.writeString(notice, "global\n  maxconn 10\n  stats socket /run/h.sock\n.notice \"password ${DB_PASSWORD}\"\n"
                + ".if streq(\"${DB_PASSWORD}\",\"y\")\n.endif\ndefaults\n  mode http\n");
        TestSupport.Run v = TestSupport.runWith(new ByteArrayInputStream(new byte[0]), env, "scan", "--verbose",
                "--format", "json", notice.toString());
        assertFalse((v.out() + v.err()).contains("hunter2"), v.out() + v.err());
        assertTrue((v.out() + v.err()).contains("password ${DB_PASSWORD}"), v.out() + v.err());
    }
}
