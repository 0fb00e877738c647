package dev.deja.model.kube;

import java.util.List;

/**
 * A bare Pod, as a static pod manifest holds it (kubeadm's {@code
 * /etc/kubernetes/manifests/etcd.yaml}), reduced to its metadata and containers. Pods created by a
 * workload are judged through the workload's template; deja keeps bare Pods for the control plane's
 * static pods.
 *
 * @param nodeName {@code spec.nodeName} (set on mirror pods read from a cluster), or null
 */
public record Pod(Meta meta, List<Container> containers, String nodeName) {
    public Pod {
        containers = containers == null ? List.of() : List.copyOf(containers);
    }
}
