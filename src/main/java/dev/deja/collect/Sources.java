package dev.deja.collect;

import dev.deja.snapshot.SnapshotFileLoader;
import dev.deja.source.FileKind;
import dev.deja.source.FileLoader;
import dev.deja.source.LiveSource;
import dev.deja.source.aws.AwsLiveSource;
import dev.deja.source.haproxy.HaproxyFileLoader;
import dev.deja.source.haproxy.HaproxyRuntimeSource;
import dev.deja.source.kube.KubeLiveSource;
import dev.deja.source.kube.ManifestLoader;
import dev.deja.source.prometheus.PrometheusSource;
import java.util.function.Supplier;

/**
 * The one place that names each source's implementation, as code the compiler checks. Each is
 * created in a lambda (not a {@code ::new} reference, which would resolve the class when the
 * constant is made), so its class (and the library behind it: Fabric8, the AWS SDK) is loaded only
 * when a scan uses that source: a HAProxy file scan loads nothing of Kubernetes or AWS ({@code
 * ClassLoadingTest}).
 */
final class Sources {
    private Sources() {}

    /** The live sources, by the flag that turns each on. */
    enum Live {
        KUBERNETES(() -> new KubeLiveSource()),
        AWS(() -> new AwsLiveSource()),
        HAPROXY_RUNTIME(() -> new HaproxyRuntimeSource()),
        PROMETHEUS(() -> new PrometheusSource());

        private final Supplier<LiveSource> factory;

        Live(Supplier<LiveSource> factory) {
            this.factory = factory;
        }

        LiveSource create() {
            return factory.get();
        }
    }

    /** The loader of one kind of file. */
    static FileLoader loader(FileKind kind) {
        return switch (kind) {
            case HAPROXY -> new HaproxyFileLoader();
            case KUBERNETES -> new ManifestLoader();
            case SNAPSHOT -> new SnapshotFileLoader();
        };
    }
}
