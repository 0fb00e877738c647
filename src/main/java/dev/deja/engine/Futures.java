package dev.deja.engine;

import java.util.concurrent.ExecutionException;

/** What a task run on another thread threw, thrown again on the waiting thread as it was. */
public final class Futures {
    private Futures() {}

    /**
     * The task's own RuntimeException or Error, thrown as is (an input error stays an input error,
     * an OutOfMemoryError stays one); anything else wrapped. Declared to return so callers can
     * write {@code throw}.
     */
    public static RuntimeException rethrow(ExecutionException e) {
        Throwable c = e.getCause();
        if (c instanceof RuntimeException re) {
            throw re;
        }
        if (c instanceof Error err) {
            throw err;
        }
        return new IllegalStateException(c);
    }
}
