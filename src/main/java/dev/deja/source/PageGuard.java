package dev.deja.source;

import java.util.HashSet;
import java.util.Set;

/**
 * The paging guards of every paged list (Kubernetes lists, the ELBv2 and EC2 Describe calls, S3
 * listings): a paginator asks for the next page as long as a token comes, so a server that sends a
 * token again, or a new one forever, would make it page without end. After each page, {@link #stop}
 * says whether to stop: the token was seen before, more than {@code maxPages} pages, or (when
 * given) the list outlived its {@link ListDeadline}. The caller says what it then does with the
 * words.
 */
public final class PageGuard {
    /** Why a list was stopped. */
    public enum Kind {
        REPEATED,
        TOO_MANY,
        DEADLINE
    }

    /**
     * A stop: its kind and one line ("the endpoint sent the same NextMarker again (page 3)...").
     */
    public record Stop(Kind kind, String message) {}

    private final String who;
    private final String token;
    private final int maxPages;
    private final String pages;
    private final long deadlineMs;
    private final long deadline;
    private final Set<String> seen = new HashSet<>();

    /**
     * {@code who} sends the pages ("the endpoint"), {@code token} names its token ("NextMarker"),
     * {@code pages} what is counted ("pages of 400"); {@code deadlineMs} from now, or 0 when the
     * caller checks the deadline itself.
     */
    public PageGuard(String who, String token, int maxPages, String pages, long deadlineMs) {
        this.who = who;
        this.token = token;
        this.maxPages = maxPages;
        this.pages = pages;
        this.deadlineMs = deadlineMs;
        this.deadline = System.nanoTime() + deadlineMs * 1_000_000L;
    }

    /**
     * After page {@code read} (1 for the first), whose next token is {@code next}: null to go on.
     */
    public Stop stop(String next, int read) {
        if (!seen.add(next)) {
            return new Stop(
                    Kind.REPEATED,
                    who
                            + " sent the same "
                            + token
                            + " again (page "
                            + read
                            + "): the list would never end");
        }
        if (read >= maxPages) {
            return new Stop(
                    Kind.TOO_MANY,
                    "more than " + maxPages + " " + pages + " (the most deja reads for one list)");
        }
        if (deadlineMs > 0 && System.nanoTime() - deadline > 0) {
            return new Stop(Kind.DEADLINE, ListDeadline.passed(deadlineMs, read));
        }
        return null;
    }
}
