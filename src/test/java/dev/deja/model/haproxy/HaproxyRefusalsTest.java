package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What HAProxy refuses, deja does not accept silently (issue #10, item 11): a last line without LF
 * (fatal since HAProxy 2.3, a warning in 2.2), a keyword before any section, a file named on the
 * command line that is no HAProxy configuration. Each refusal is one line naming file:line, exit 2;
 * where the haproxy binary is installed, it must refuse the same files.
 */
class HaproxyRefusalsTest {
    @TempDir Path tmp;

    static final String VALID =
            "global\n    maxconn 100\n    stats socket /tmp/deja-test.sock\n"
                    + "defaults\n    mode http\n    timeout connect 5s\n    timeout client 5s\n    timeout server 5s\n"
                    + "    timeout http-request 5s\nfrontend fe\n    bind 127.0.0.1:18480\n    default_backend be\n"
                    + "backend be\n    server s1 127.0.0.1:9000";

    Path write(String name, String text) throws IOException {
        Path p = tmp.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    static void refused(TestSupport.Run r, String expected) {
        assertEquals(2, r.code(), r.out() + r.err());
        String err = r.err().strip();
        assertFalse(err.contains("\n"), "one line: " + err);
        assertTrue(err.contains(expected), err);
    }

    /** haproxy -c's exit code, or -1 when haproxy is not installed. */
    static int haproxyCheck(Path p) throws Exception {
        Process proc;
        try {
            proc =
                    new ProcessBuilder("haproxy", "-c", "-f", p.toString())
                            .redirectErrorStream(true)
                            .start();
        } catch (IOException e) {
            System.err.println(
                    "haproxy is not installed: " + p + " is not checked against haproxy -c");
            return -1;
        }
        assertTrue(proc.waitFor(60, TimeUnit.SECONDS), "haproxy -c timed out");
        new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return proc.exitValue();
    }

    @Test
    void aLastLineWithoutLfIsFatalSinceHaproxy23() throws Exception {
        Path ok = write("ok.cfg", VALID + "\n");
        Path p = write("nolf.cfg", VALID);
        refused(
                TestSupport.run("scan", p.toString()),
                "nolf.cfg:14: missing LF on last line: HAProxy 3.2 refuses");
        refused(
                TestSupport.run("scan", "--haproxy-version", "2.3", p.toString()),
                "nolf.cfg:14: missing LF");
        TestSupport.Run warned = TestSupport.run("scan", "--haproxy-version", "2.2", p.toString());
        assertEquals(0, warned.code(), warned.out() + warned.err());
        assertTrue(
                warned.err().contains("nolf.cfg:14: missing LF on last line: HAProxy 2.2 warns"),
                warned.err());
        TestSupport.Run old = TestSupport.run("scan", "--haproxy-version", "2.1", p.toString());
        assertEquals(0, old.code(), old.err());
        assertFalse(old.err().contains("LF"), old.err());
        assertEquals(0, TestSupport.run("scan", ok.toString()).code());
        assertEquals(
                0,
                TestSupport.run("scan", write("empty.cfg", "").toString()).code(),
                "an empty file lacks no LF");
        int accepted = haproxyCheck(ok);
        if (accepted >= 0) {
            assertEquals(0, accepted, "the same file with its LF is valid for haproxy -c");
            assertNotEquals(0, haproxyCheck(p), "haproxy -c refuses it too");
        }
    }

    @Test
    void aTimeoutThatIsNoTimeIsRefusedAsHaproxyRefusesIt() throws Exception {
        for (String bad : new String[] {"5x", "1.5s", "5S", "5u", "notatime"}) {
            Path p =
                    write(
                            "bad-" + bad + ".cfg",
                            VALID.replace("timeout http-request 5s", "timeout http-request " + bad)
                                    + "\n");
            refused(
                    TestSupport.run("scan", p.toString()),
                    p.getFileName() + ":9: '" + bad + "' in 'timeout http-request' is not a time");
            if (haproxyCheck(p) >= 0) {
                assertEquals(1, haproxyCheck(p), "haproxy -c refuses timeout http-request " + bad);
            }
        }
        // no value at all: refused too
        Path none =
                write(
                        "no-value.cfg",
                        VALID.replace("timeout http-request 5s", "timeout http-request") + "\n");
        refused(
                TestSupport.run("scan", none.toString()),
                "no-value.cfg:9: 'timeout http-request' has no value");
        if (haproxyCheck(none) >= 0) {
            assertEquals(1, haproxyCheck(none), "haproxy -c refuses timeout http-request alone");
        }
        // HAProxy 2.6 reads '5sec' as 5s and only warns: a note, the scan goes on
        Path warned =
                write(
                        "sec.cfg",
                        VALID.replace("timeout http-request 5s", "timeout http-request 5sec")
                                + "\n");
        TestSupport.Run r = TestSupport.run("scan", "--verbose", warned.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(
                r.err().contains("sec.cfg:9: '5sec' in 'timeout http-request' is not a time")
                        && r.err().contains("reads it as 5s"),
                r.err());
        // an unset variable (HAProxy expands them within double quotes only) is unknown, not wrong;
        // under an
        // undecided .if a bad time is a note
        Path variable =
                write(
                        "var.cfg",
                        VALID.replace("timeout http-request 5s", "timeout http-request \"${T}\"")
                                + "\n");
        assertEquals(0, TestSupport.run("scan", variable.toString()).code());
        Path undecided =
                write(
                        "undecided-time.cfg",
                        VALID.replace(
                                        "timeout http-request 5s",
                                        ".if defined(X)\n    timeout http-request 5x\n.endif")
                                + "\n");
        TestSupport.Run u = TestSupport.run("scan", "--verbose", undecided.toString());
        assertNotEquals(2, u.code(), u.err());
        assertTrue(
                u.err()
                                .contains(
                                        "undecided-time.cfg:10: '5x' in 'timeout http-request' is not a time")
                        && u.err().contains("HAProxy refuses the file when"),
                u.err());
    }

    @Test
    void aKeywordBeforeAnySectionIsRefused() throws Exception {
        Path p = write("stray.cfg", "# a stray line\nhello world\n" + VALID + "\n");
        refused(
                TestSupport.run("scan", p.toString()),
                "stray.cfg:2: unknown keyword 'hello' out of section");
        if (haproxyCheck(p) >= 0) {
            assertNotEquals(
                    0, haproxyCheck(p), "haproxy -c: unknown keyword 'hello' out of section");
        }
        // sections of recent versions open a section too (log-profile: 3.1; namespace_list: network
        // namespaces)
        Path profile =
                write(
                        "profile.cfg",
                        "log-profile keylog\n    on any format \"%ci\"\n" + VALID + "\n");
        assertEquals(0, TestSupport.run("scan", profile.toString()).code());
        Path undecided =
                write("undecided.cfg", ".if defined(EXTRA)\nhello world\n.endif\n" + VALID + "\n");
        TestSupport.Run r = TestSupport.run("scan", undecided.toString());
        assertEquals(0, r.code(), "only when EXTRA is defined would HAProxy refuse it: " + r.err());
    }

    @Test
    void aNamedFileThatIsNoConfigIsAnInputError() throws Exception {
        Path notes = write("notes.cfg", "hello world\n");
        refused(
                TestSupport.run("scan", notes.toString()),
                "notes.cfg:1: not a HAProxy configuration, Kubernetes"
                        + " manifest or deja snapshot ('hello' opens no HAProxy section");
        if (haproxyCheck(notes) >= 0) {
            assertNotEquals(0, haproxyCheck(notes));
        }
        Path nginx = write("nginx.conf", "# nginx\nuser www-data;\nevents {}\n");
        refused(
                TestSupport.run("scan", nginx.toString()),
                "nginx.conf:2: not a HAProxy configuration");
        Path comments = write("placeholder.cfg", "# filled in by the deploy job\n\n");
        assertEquals(
                0,
                TestSupport.run("scan", comments.toString()).code(),
                "comments only: an empty configuration");
        // found in a folder, the same file is listed as skipped, and the folder's configuration is
        // still read
        Path dir = tmp.resolve("conf");
        write("conf/notes.cfg", "hello world\n");
        write("conf/haproxy.cfg", VALID + "\n");
        TestSupport.Run r = TestSupport.run("scan", dir.toString());
        assertEquals(0, r.code(), r.out() + r.err());
        assertTrue(
                r.out().contains("Skipped (not a HAProxy configuration")
                        && r.out().contains("notes.cfg"),
                r.out());
    }

    /**
     * Keywords HAProxy removed (issue 26 item 5): refused with file:line where the
     * --haproxy-version in force refuses them (as haproxy 2.6 -c does), read as older versions read
     * them otherwise; deja never says a timeout is unset when the file sets it in its old spelling.
     */
    @Test
    void removedKeywordsFollowTheHaproxyVersion() throws Exception {
        String[][] removed = {
            {"    contimeout 5000", "'contimeout': HAProxy 3.2 refuses the file", "2.0"},
            {"    clitimeout 50000", "Use 'timeout client'.", "2.0"},
            {"    srvtimeout 50000", "'srvtimeout': HAProxy", "2.0"},
            {
                "    reqrep ^([^\\ ]*)\\ /static/(.*) \\1\\ /\\2",
                "'reqrep': HAProxy 3.2 refuses",
                "2.0"
            },
            {"    block if { src 10.0.0.1 }", "'block': HAProxy", "2.0"},
            {"    redispatch", "'redispatch': HAProxy", "2.0"},
        };
        for (String[] r : removed) {
            String text =
                    VALID.replace(
                                    "    timeout http-request 5s\n",
                                    "    timeout http-request 5s\n" + r[0] + "\n")
                            + "\n";
            Path p = write("removed-" + r[0].strip().split(" ")[0] + ".cfg", text);
            TestSupport.Run refusedNow = TestSupport.run("scan", p.toString());
            refused(refusedNow, p.getFileName() + ":10: '" + r[0].strip().split(" ")[0] + "'");
            assertTrue(refusedNow.err().contains(r[1]), refusedNow.err());
            TestSupport.Run old = TestSupport.run("scan", "--haproxy-version", r[2], p.toString());
            assertEquals(0, old.code(), r[0] + ": " + old.out() + old.err());
            int checked = haproxyCheck(p);
            if (checked >= 0) {
                assertNotEquals(0, checked, "haproxy 2.6 -c refuses " + r[0] + " too");
            }
        }
        Path nbproc =
                write(
                        "nbproc.cfg",
                        VALID.replace("    maxconn 100\n", "    maxconn 100\n    nbproc 2\n")
                                + "\n");
        refused(
                TestSupport.run("scan", nbproc.toString()),
                "nbproc.cfg:3: 'nbproc': HAProxy 3.2 refuses the file (\"nbproc is not supported any more since HAProxy 2.5.");
        assertEquals(
                0, TestSupport.run("scan", "--haproxy-version", "2.4", nbproc.toString()).code());
        refused(
                TestSupport.run("scan", "--haproxy-version", "2.5", nbproc.toString()),
                "nbproc.cfg:3:");
        if (haproxyCheck(nbproc) >= 0) {
            assertNotEquals(0, haproxyCheck(nbproc), "haproxy 2.6 -c refuses nbproc too");
        }
        Path address =
                write(
                        "address.cfg",
                        VALID.replace(
                                        "frontend fe\n    bind 127.0.0.1:18480\n",
                                        "frontend fe 127.0.0.1:18480\n")
                                + "\n");
        refused(
                TestSupport.run("scan", address.toString()),
                "address.cfg:10: 'frontend fe 127.0.0.1:18480': HAProxy 3.2 refuses the file (\"please use the 'bind' keyword for listening addresses\"");
        if (haproxyCheck(address) >= 0) {
            assertNotEquals(0, haproxyCheck(address), "haproxy 2.6 -c refuses it too");
        }
    }

    /**
     * Before 2.1 the old timeout spellings are timeouts: 'clitimeout 50000' is timeout client 50s,
     * never "timeout client is unset"; before 1.6 an address on the section line is a bind.
     */
    @Test
    void oldSpellingsAreReadAsOldVersionsReadThem() throws Exception {
        Path p =
                write(
                        "old.cfg",
                        "defaults\n    mode http\n    contimeout 5000\n    clitimeout 50000\n"
                                + "    srvtimeout 50000\nlisten web 0.0.0.0:18481\n"
                                + "    server s1 127.0.0.1:9000\n");
        TestSupport.Run r =
                TestSupport.run(
                        "scan",
                        "--haproxy-version",
                        "1.5",
                        "--rules",
                        "haproxy-missing-http-request-timeout",
                        p.toString());
        assertEquals(1, r.code(), r.out() + r.err());
        assertTrue(r.out().contains("listen web (mode http) has no timeout http-request"), r.out());
        assertTrue(r.out().contains("only timeout client 50s ("), r.out());
        assertFalse(r.out().contains("timeout client is unset"), r.out());
        refused(
                TestSupport.run("scan", "--haproxy-version", "2.0", p.toString()),
                "old.cfg:6: 'listen web 0.0.0.0:18481': HAProxy 2.0 refuses the file");
    }
}
