package dev.deja.source.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** deja.dev/ignore: "<rule-id>[,<rule-id>] <reason>": where the list of rule ids ends. */
class AnnotationSuppressionsTest {
    static String ids(String v) {
        return v.substring(0, AnnotationSuppressions.idsEnd(v));
    }

    @Test
    void aSpaceAfterACommaStillContinuesTheList() {
        assertEquals("a,b", ids("a,b reason here"));
        assertEquals("a, b", ids("a, b reason here"));
        assertEquals("a ,b", ids("a ,b reason"));
        assertEquals("a,  b,c", ids("a,  b,c  the reason, with a comma"));
        assertEquals("a", ids("a reason, with a comma"));
        assertEquals("a", ids("a"));
    }
}
