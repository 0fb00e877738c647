package dev.deja.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class PageGuardTest {
    @Test
    void aRepeatedTokenStopsTheList() {
        PageGuard g = new PageGuard("the endpoint", "NextMarker", 10, "pages of 400", 0);
        assertNull(g.stop("a", 1));
        assertNull(g.stop("b", 2));
        PageGuard.Stop s = g.stop("a", 3);
        assertEquals(PageGuard.Kind.REPEATED, s.kind());
        assertEquals(
                "the endpoint sent the same NextMarker again (page 3): the list would never end",
                s.message());
    }

    @Test
    void tooManyPagesStopTheList() {
        PageGuard g = new PageGuard("the API server", "continue token", 2, "pages of 500", 0);
        assertNull(g.stop("a", 1));
        PageGuard.Stop s = g.stop("b", 2);
        assertEquals(PageGuard.Kind.TOO_MANY, s.kind());
        assertEquals("more than 2 pages of 500 (the most deja reads for one list)", s.message());
    }

    @Test
    void aDeadlineInThePastStopsTheList() throws InterruptedException {
        PageGuard g = new PageGuard("the endpoint", "NextToken", 10, "pages", 1);
        Thread.sleep(5);
        PageGuard.Stop s = g.stop("a", 1);
        assertEquals(PageGuard.Kind.DEADLINE, s.kind());
        assertEquals(ListDeadline.passed(1, 1), s.message());
    }
}
