package dev.deja.rules.haproxy;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The quick test that spares building the terms of a frontend whose rate rules cannot read the host
 * name: it must pass every word the full test (a host fetch, after lower-casing) may accept.
 */
class HostScopedLimitsTest {

    @Test
    void everyHostFetchPassesTheQuickTest() {
        for (String w :
                List.of(
                        "hdr(host)",
                        "req.hdr(host)",
                        "hdr_end(host)",
                        "hdr_dom(host,1)",
                        "{hdr(host)",
                        "!hdr(host)",
                        "ssl_fc_sni",
                        "req.ssl_sni",
                        "req_ssl_sni",
                        "ssl_sni",
                        "HDR(Host)",
                        "Req.SSL_SNI",
                        "ssl_snİ")) { // lower-cases to "ssl_sni" and a combining dot
            assertTrue(HostScopedLimits.mayNameHost(w), w);
        }
    }

    @Test
    void wordsWithoutHdrOrSniAreNoHostFetch() {
        for (String w :
                List.of(
                        "{",
                        "}",
                        "sc_http_req_rate(0)",
                        "gt",
                        "100",
                        "http-request",
                        "deny",
                        "deny_status",
                        "429",
                        "if",
                        "src",
                        "path_beg",
                        "/api",
                        "track-sc0",
                        "table",
                        "st_rates",
                        "",
                        "hd",
                        "sn")) {
            assertFalse(HostScopedLimits.mayNameHost(w), w);
            assertFalse(
                    HostScopedLimits.HOST_FETCH.matcher(w.toLowerCase(Locale.ROOT)).matches(), w);
        }
    }

    @Test
    void theQuickTestNeverRejectsWhatTheFullTestAccepts() {
        // every word of 1 to 4 characters over an alphabet that spells the fetches' parts, in
        // both cases, and with a character outside ASCII
        String alphabet = "hdrsniHDRSNI(_.)İ";
        List<String> words = new ArrayList<>(List.of(""));
        for (int len = 0; len < 4; len++) {
            List<String> next = new ArrayList<>();
            for (String w : words) {
                for (int i = 0; i < alphabet.length(); i++) {
                    next.add(w + alphabet.charAt(i));
                }
            }
            for (String w : next) {
                for (String word : List.of(w, w + "(host)", "req." + w, "ssl_" + w, w + "_sni")) {
                    if (HostScopedLimits.HOST_FETCH
                            .matcher(word.toLowerCase(Locale.ROOT))
                            .matches()) {
                        assertTrue(HostScopedLimits.mayNameHost(word), word);
                    }
                }
            }
            words = next;
        }
    }
}
