package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The head start Main gives a scan that reads a deja.yaml. */
class WarmUpTest {
    @Test
    void aConfigFileGivenIsWarmedUpAndNoConfigIsNot() {
        assertTrue(WarmUp.readsConfigFile(List.of("scan", "--config", "ci/deja.yaml", "x.cfg")));
        assertTrue(WarmUp.readsConfigFile(List.of("scan", "--config=deja.yaml", "x.cfg")));
        assertFalse(
                WarmUp.readsConfigFile(List.of("scan", "--no-config", "--config", "deja.yaml")));
    }

    @Test
    void theWarmUpReadsItsSampleWithTheScansOwnReader() {
        // the sample is a valid deja.yaml: were it not, the warm-up would stop at its first error
        // and leave part of the reader cold
        assertDoesNotThrow(WarmUp::configFile);
        assertTrue(ConfigFile.rulesDirsOf("rulesDirs: [a, b]\n").equals(List.of("a", "b")));
        assertTrue(ConfigFile.rulesDirsOf("failOn: none\n").isEmpty());
        // as the full read takes them: one plain value, or a list's plain values as written
        assertEquals(List.of("mine"), ConfigFile.rulesDirsOf("rulesDirs: mine\n"));
        assertEquals(List.of("0x10", "a"), ConfigFile.rulesDirsOf("rulesDirs: [0x10, ~, a]\n"));
    }
}
