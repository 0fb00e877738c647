package dev.deja.model.aws;

/**
 * One registered target and its health. {@code state}: initial, healthy, unhealthy,
 * unhealthy.draining, unused, draining, unavailable. {@code zone} is the Availability Zone name,
 * {@code "all"} for an IP target outside the VPC that receives traffic from every zone, or null
 * when it could not be known; {@code zoneSource} says how it was found: target
 * (Target.AvailabilityZone), subnet (the subnet whose CIDR holds the IP), instance
 * (DescribeInstances) or unknown.
 */
public record TargetView(
        String id,
        Integer port,
        String zone,
        String zoneSource,
        String state,
        String reason,
        String description) {

    public static final String HEALTHY = "healthy";
    public static final String UNAVAILABLE = "unavailable";

    public boolean healthy() {
        return HEALTHY.equals(state);
    }

    public boolean healthUnreported() {
        return UNAVAILABLE.equals(state);
    }

    public boolean zoneKnown() {
        return zone != null;
    }

    /**
     * Whether the target takes traffic for clients of {@code zoneName} (its own zone, or "all").
     */
    public boolean inZone(String zoneName) {
        return zone != null && (zone.equals(zoneName) || "all".equals(zone));
    }

    /** "i-0abc:80". */
    public String display() {
        return port == null ? id : id + ":" + port;
    }
}
