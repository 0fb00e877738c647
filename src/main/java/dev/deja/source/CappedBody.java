package dev.deja.source;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * An HTTP answer's bytes, at most {@code limit}: more cancels the exchange and fails it with "the
 * answer exceeds ..." (the words {@code tooLong} gives), instead of reading on. Shared by every
 * HTTP source that reads a whole answer (HAProxy's stats page and exporter, Prometheus).
 */
public final class CappedBody implements HttpResponse.BodySubscriber<byte[]> {
    private final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final long limit;
    private final String tooLong;
    private Flow.Subscription sub;

    /** {@code tooLong}: how the limit reads in the error, e.g. "64 MiB". */
    public CappedBody(long limit, String tooLong) {
        this.limit = limit;
        this.tooLong = tooLong;
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return body;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        sub = s;
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
        if (body.isDone()) {
            return;
        }
        for (ByteBuffer b : items) {
            byte[] a = new byte[b.remaining()];
            b.get(a);
            out.write(a, 0, a.length);
        }
        if (out.size() > limit) {
            sub.cancel();
            body.completeExceptionally(new IOException("the answer exceeds " + tooLong));
        }
    }

    @Override
    public void onError(Throwable t) {
        body.completeExceptionally(t);
    }

    @Override
    public void onComplete() {
        body.complete(out.toByteArray());
    }
}
