package dev.deja.model.haproxy;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.engine.Fix;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The directives a rule's fix may set are keywords HAProxy knows in that section. */
class FixDirectivesTest {
    @Test
    void everyDirectiveAFixMaySetIsAHaproxyKeyword() {
        for (Map.Entry<String, List<String>> e : Fix.DIRECTIVES.entrySet()) {
            String[] list = e.getKey().equals("global") ? KeywordList.GLOBAL : KeywordList.PROXY;
            for (String d : e.getValue()) {
                boolean known = false;
                for (int i = 0; i < list.length; i += 2) {
                    known |= list[i].equals(d);
                }
                assertTrue(known, e.getKey() + ": " + d + " is not in HAProxy's keyword list");
            }
        }
    }
}
