package dev.deja.model.kube;

import java.util.List;
import java.util.Map;

/**
 * A NetworkPolicy reduced to what decides who may connect to the pods it selects: its pod selector,
 * its policy types and its ingress rules (ports and peers). Egress rules are not kept.
 *
 * @param podSelector the pods of the policy's namespace it applies to; an empty selector ({@code
 *     {}}) selects every pod of the namespace
 * @param policyTypes as written (empty when unset: Kubernetes then implies Ingress, and Egress only
 *     when the policy has egress rules)
 * @param ingress the ingress rules; traffic a selected pod receives is allowed when any rule of any
 *     policy that selects it allows it
 */
public record NetworkPolicy(
        Meta meta, Selector podSelector, List<String> policyTypes, List<Rule> ingress) {

    public NetworkPolicy {
        podSelector = podSelector == null ? Selector.EMPTY : podSelector;
        policyTypes = policyTypes == null ? List.of() : List.copyOf(policyTypes);
        ingress = ingress == null ? List.of() : List.copyOf(ingress);
    }

    /**
     * One ingress rule: an empty {@code ports} list allows every port, an empty {@code from} list
     * every source (Kubernetes' semantics; an allow-all rule is no restriction).
     */
    public record Rule(List<Port> ports, List<Peer> from) {
        public Rule {
            ports = ports == null ? List.of() : List.copyOf(ports);
            from = from == null ? List.of() : List.copyOf(from);
        }
    }

    /**
     * A port of a rule: a number or a named container port, with an optional {@code endPort} range;
     * protocol TCP when unset.
     */
    public record Port(String protocol, String port, Integer endPort) {
        /**
         * Whether this entry admits TCP to a container port given by number and (optional) name.
         */
        public boolean admits(int number, String name) {
            if (protocol != null && !protocol.equalsIgnoreCase("TCP")) {
                return false;
            }
            if (port == null) {
                return true; // no port: every port of the protocol
            }
            try {
                int p = Integer.parseInt(port.trim());
                return endPort == null ? p == number : number >= p && number <= endPort;
            } catch (NumberFormatException e) {
                return port.equals(name);
            }
        }
    }

    /**
     * A source: pods chosen by {@code podSelector} (in the policy's namespace, or in the namespaces
     * of {@code namespaceSelector} when both are set), every pod of the namespaces of {@code
     * namespaceSelector}, or the addresses of {@code cidr} minus {@code except}. A selector that is
     * absent is null; an empty one ({@code {}}) selects everything.
     */
    public record Peer(
            Selector podSelector, Selector namespaceSelector, String cidr, List<String> except) {
        public Peer {
            except = except == null ? List.of() : List.copyOf(except);
        }

        /**
         * Any pod of any namespace: {@code namespaceSelector: {}} with no or an empty pod selector.
         */
        public boolean everyPod() {
            return namespaceSelector != null
                    && namespaceSelector.isEmpty()
                    && (podSelector == null || podSelector.isEmpty());
        }

        /** Every address: {@code 0.0.0.0/0} or {@code ::/0} without exceptions. */
        public boolean everyAddress() {
            return cidr != null
                    && except.isEmpty()
                    && (cidr.strip().equals("0.0.0.0/0") || cidr.strip().equals("::/0"));
        }

        /**
         * "ipBlock 10.0.0.0/24", "pods app=x in namespaces
         * kubernetes.io/metadata.name=kube-system".
         */
        public String describe() {
            if (cidr != null) {
                return "ipBlock " + cidr + (except.isEmpty() ? "" : " except " + except);
            }
            String pods =
                    podSelector == null
                            ? "every pod"
                            : podSelector.isEmpty() ? "every pod" : "pods " + podSelector.text();
            if (namespaceSelector == null) {
                return pods + " of the policy's namespace";
            }
            return pods
                    + " in "
                    + (namespaceSelector.isEmpty()
                            ? "every namespace"
                            : "namespaces " + namespaceSelector.text());
        }
    }

    /**
     * Whether the policy applies to ingress: listed in policyTypes, or implied when policyTypes is
     * unset.
     */
    public boolean governsIngress() {
        return policyTypes.isEmpty()
                || policyTypes.stream().anyMatch(t -> t.equalsIgnoreCase("Ingress"));
    }

    /**
     * Whether the policy selects a pod with these labels in its namespace (an empty selector
     * selects all).
     */
    public boolean selects(Meta podOwner, Map<String, String> podLabels) {
        return meta.sameNamespace(podOwner)
                && (podSelector.isEmpty() || podSelector.matches(podLabels));
    }
}
