package dev.deja.source.aws;

import dev.deja.engine.Coverage;
import dev.deja.engine.Futures;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.model.aws.AwsInventory;
import dev.deja.model.aws.LoadBalancerView;
import dev.deja.model.aws.TargetGroupView;
import dev.deja.model.aws.TargetView;
import dev.deja.source.ListDeadline;
import dev.deja.source.PageGuard;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.xml.stream.XMLStreamException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.pagination.sync.SdkIterable;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesResponse;
import software.amazon.awssdk.services.ec2.model.DescribeSubnetsResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.Subnet;
import software.amazon.awssdk.services.ec2.model.SubnetIpv6CidrBlockAssociation;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.AvailabilityZone;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeLoadBalancersResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeTargetGroupsResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancer;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerAttribute;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Tag;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TagDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroupAttribute;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetHealthDescription;

/**
 * The calls for one region, each the fewest the data needs: DescribeLoadBalancers and
 * DescribeTargetGroups (pages of 400, the API's maximum, followed by Marker, both listings at
 * once), then per load balancer DescribeLoadBalancerAttributes, per 20 load balancers DescribeTags,
 * per target group DescribeTargetGroupAttributes and DescribeTargetHealth, all on a pool of {@link
 * AwsLiveSource#CONCURRENCY}; then, only for targets whose response has no AvailabilityZone, EC2
 * DescribeSubnets (one call for all VPCs of ip targets) and DescribeInstances (200 instance ids per
 * call). The target group's LoadBalancerArns link it to its load balancers, so DescribeListeners is
 * not needed. Denied or failed calls become coverage entries naming what was not checked.
 */
final class RegionScan {
    static final int PAGE_SIZE = 400;
    static final int TAGS_PER_CALL = 20;
    static final int INSTANCES_PER_CALL = 200;
    static final int VPCS_PER_CALL = 200;

    /**
     * Most pages read for one Describe list (400,000 objects): an endpoint that pages forever is
     * stopped.
     */
    static final int MAX_PAGES = 1_000;

    /** The region's endpoint could not be reached at all. */
    static final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreachable(String m) {
            super(m);
        }
    }

    /** AWS rejected the credentials (expired, invalid): the whole source is unusable. */
    static final class AuthRejected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AuthRejected(String m) {
            super(m);
        }
    }

    private static final Set<String> DENIED =
            Set.of(
                    "AccessDenied",
                    "AccessDeniedException",
                    "UnauthorizedOperation",
                    "UnauthorizedAccess",
                    "Forbidden");
    private static final Set<String> AUTH =
            Set.of(
                    "ExpiredToken",
                    "ExpiredTokenException",
                    "InvalidClientTokenId",
                    "UnrecognizedClientException",
                    "SignatureDoesNotMatch",
                    "AuthFailure",
                    "InvalidAccessKeyId",
                    "RequestExpired",
                    "InvalidToken",
                    "MissingAuthenticationToken",
                    "IncompleteSignature");

    static final String HEALTH_UNAVAILABLE = "HealthUnavailable";

    private final String region;
    private final ElasticLoadBalancingV2Client elb;
    private final Supplier<Ec2Client> ec2;
    private final ExecutorService pool;
    private final SnapshotBuilder out;
    private final AtomicInteger calls = new AtomicInteger();
    private final Map<String, Tally> tallies = new ConcurrentHashMap<>();

    /** How long one paged list may take in all ({@link ListDeadline}). */
    long listDeadlineMs = ListDeadline.DEFAULT_SECONDS * 1000L;

    /** {@code ec2} is called only when a target's zone is missing from DescribeTargetHealth. */
    RegionScan(
            String region,
            ElasticLoadBalancingV2Client elb,
            Supplier<Ec2Client> ec2,
            ExecutorService pool,
            SnapshotBuilder out) {
        this.region = region;
        this.elb = elb;
        this.ec2 = ec2;
        this.pool = pool;
        this.out = out;
    }

    /** API calls made (each retry by the SDK not counted). */
    int calls() {
        return calls.get();
    }

    /** What a call returned or why it did not. */
    private record Result<T>(T value, String code, String message, Coverage.Status status) {
        boolean ok() {
            return status == null;
        }
    }

    /** Successes and failures of one API in this region, for coverage. */
    private static final class Tally {
        final AtomicInteger ok = new AtomicInteger();
        final ConcurrentLinkedQueue<String> denied = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<String> failed = new ConcurrentLinkedQueue<>();
        volatile String deniedWhy;
        volatile String failedWhy;
    }

    private Tally tally(String api) {
        return tallies.computeIfAbsent(api, k -> new Tally());
    }

    private <T> Result<T> call(String api, String object, Supplier<T> s) {
        return call(api, List.of(object), s);
    }

    /** One API call; {@code objects} name what it reads, for the coverage entry when it fails. */
    private <T> Result<T> call(String api, List<String> objects, Supplier<T> s) {
        calls.incrementAndGet();
        Tally t = tally(api);
        try {
            T v = s.get();
            t.ok.incrementAndGet();
            return new Result<>(v, null, null, null);
        } catch (AwsServiceException e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            String msg =
                    e.awsErrorDetails() == null
                            ? e.getMessage()
                            : e.awsErrorDetails().errorMessage();
            String why =
                    (code == null ? "HTTP " + e.statusCode() : code)
                            + ": "
                            + AwsLiveSource.oneLine(msg);
            if (code != null && AUTH.contains(code)) {
                throw new AuthRejected("AWS rejected the credentials (" + why + ")");
            }
            if (HEALTH_UNAVAILABLE.equals(code)) {
                // AWS answered: the load balancer has no health for this group. That is the IL-0364
                // symptom, which
                // aws-nlb-zone-health-unreported reports; the call itself was read, so it is not a
                // coverage gap.
                t.ok.incrementAndGet();
                return new Result<>(null, code, msg, Coverage.Status.FAILED);
            }
            if ((code != null && DENIED.contains(code))
                    || (code == null && e.statusCode() == 403)) {
                t.denied.addAll(objects);
                t.deniedWhy = why;
                return new Result<>(
                        null, code == null ? "AccessDenied" : code, msg, Coverage.Status.DENIED);
            }
            t.failed.addAll(objects);
            t.failedWhy = why;
            return new Result<>(
                    null,
                    code == null ? "HTTP" + e.statusCode() : code,
                    msg,
                    Coverage.Status.FAILED);
        } catch (SdkClientException e) {
            t.failed.addAll(objects);
            if (malformed(
                    e)) { // the endpoint answered, but not ELBv2 XML: not an unreachable region
                t.failedWhy =
                        "the endpoint's answer is not a valid "
                                + api
                                + " response: "
                                + AwsLiveSource.oneLine(e.getMessage());
                return new Result<>(null, "Malformed", e.getMessage(), Coverage.Status.FAILED);
            }
            t.failedWhy = AwsLiveSource.oneLine(e.getMessage());
            return new Result<>(null, "ClientError", e.getMessage(), Coverage.Status.FAILED);
        } catch (SdkException e) {
            t.failed.addAll(objects);
            t.failedWhy = AwsLiveSource.oneLine(e.getMessage());
            return new Result<>(null, "Error", e.getMessage(), Coverage.Status.FAILED);
        }
    }

    /** An answer that could not be parsed (malformed XML), as opposed to no answer at all. */
    static boolean malformed(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (t instanceof XMLStreamException
                    || m.contains("unmarshall")
                    || m.contains("unable to parse")) {
                return true;
            }
        }
        return false;
    }

    AwsInventory run() {
        Future<List<LoadBalancer>> lbF = pool.submit(this::listLoadBalancers);
        Future<List<TargetGroup>> tgF = pool.submit(this::listTargetGroups);
        List<LoadBalancer> lbs = get(lbF);
        List<TargetGroup> tgs = get(tgF);
        if (lbs == null && tgs == null) {
            Tally t = tally("DescribeLoadBalancers");
            throw new Unreachable("cannot reach ELBv2 in " + region + ": " + t.failedWhy);
        }
        lbs = lbs == null ? List.of() : lbs;
        tgs = tgs == null ? List.of() : tgs;

        Map<String, Future<Result<List<LoadBalancerAttribute>>>> lbAttrs = lbAttributes(lbs);
        List<Future<Result<List<TagDescription>>>> tagCalls = tagCalls(lbs);
        Map<String, Future<Result<List<TargetGroupAttribute>>>> tgAttrs = new LinkedHashMap<>();
        Map<String, Future<Result<List<TargetHealthDescription>>>> health = new LinkedHashMap<>();
        targetGroupCalls(tgs, tgAttrs, health);

        Map<String, Map<String, String>> tagsByArn = tags(tagCalls);

        Map<String, Result<List<TargetHealthDescription>>> healthResults = new LinkedHashMap<>();
        for (var e : health.entrySet()) {
            healthResults.put(e.getKey(), get(e.getValue()));
        }
        Map<String, TargetGroup> tgByArn = new LinkedHashMap<>();
        tgs.forEach(t -> tgByArn.put(t.targetGroupArn(), t));
        Zones zones = resolveZones(tgByArn, healthResults);

        List<LoadBalancerView> lbViews = new ArrayList<>();
        for (LoadBalancer lb : lbs) {
            lbViews.add(lbView(lb, lbAttrs.get(lb.loadBalancerArn()), tagsByArn));
        }
        List<TargetGroupView> tgViews = new ArrayList<>();
        for (TargetGroup tg : tgs) {
            tgViews.add(
                    tgView(
                            tg,
                            tgAttrs.get(tg.targetGroupArn()),
                            healthResults.get(tg.targetGroupArn()),
                            zones));
        }
        report(lbs.size(), tgs.size());
        return new AwsInventory(lbViews, tgViews);
    }

    /** DescribeLoadBalancerAttributes of each load balancer, submitted. */
    private Map<String, Future<Result<List<LoadBalancerAttribute>>>> lbAttributes(
            List<LoadBalancer> lbs) {
        Map<String, Future<Result<List<LoadBalancerAttribute>>>> lbAttrs = new LinkedHashMap<>();
        for (LoadBalancer lb : lbs) {
            lbAttrs.put(
                    lb.loadBalancerArn(),
                    pool.submit(
                            () ->
                                    call(
                                            "DescribeLoadBalancerAttributes",
                                            lb.loadBalancerName(),
                                            () ->
                                                    elb.describeLoadBalancerAttributes(
                                                                    r ->
                                                                            r.loadBalancerArn(
                                                                                    lb
                                                                                            .loadBalancerArn()))
                                                            .attributes())));
        }
        return lbAttrs;
    }

    /** DescribeTags of the load balancers, TAGS_PER_CALL at a time, submitted. */
    private List<Future<Result<List<TagDescription>>>> tagCalls(List<LoadBalancer> lbs) {
        List<Future<Result<List<TagDescription>>>> tagCalls = new ArrayList<>();
        for (int i = 0; i < lbs.size(); i += TAGS_PER_CALL) {
            List<LoadBalancer> batch = lbs.subList(i, Math.min(lbs.size(), i + TAGS_PER_CALL));
            List<String> arns = batch.stream().map(LoadBalancer::loadBalancerArn).toList();
            List<String> names = batch.stream().map(LoadBalancer::loadBalancerName).toList();
            tagCalls.add(
                    pool.submit(
                            () ->
                                    call(
                                            "DescribeTags",
                                            names,
                                            () ->
                                                    elb.describeTags(r -> r.resourceArns(arns))
                                                            .tagDescriptions())));
        }
        return tagCalls;
    }

    /** DescribeTargetGroupAttributes and DescribeTargetHealth of each target group, submitted. */
    private void targetGroupCalls(
            List<TargetGroup> tgs,
            Map<String, Future<Result<List<TargetGroupAttribute>>>> tgAttrs,
            Map<String, Future<Result<List<TargetHealthDescription>>>> health) {
        for (TargetGroup tg : tgs) {
            tgAttrs.put(
                    tg.targetGroupArn(),
                    pool.submit(
                            () ->
                                    call(
                                            "DescribeTargetGroupAttributes",
                                            tg.targetGroupName(),
                                            () ->
                                                    elb.describeTargetGroupAttributes(
                                                                    r ->
                                                                            r.targetGroupArn(
                                                                                    tg
                                                                                            .targetGroupArn()))
                                                            .attributes())));
            health.put(
                    tg.targetGroupArn(),
                    pool.submit(
                            () ->
                                    call(
                                            "DescribeTargetHealth",
                                            tg.targetGroupName(),
                                            () ->
                                                    elb.describeTargetHealth(
                                                                    r ->
                                                                            r.targetGroupArn(
                                                                                    tg
                                                                                            .targetGroupArn()))
                                                            .targetHealthDescriptions())));
        }
    }

    /** The tags of the load balancers, by ARN, from the DescribeTags batches that answered. */
    private Map<String, Map<String, String>> tags(
            List<Future<Result<List<TagDescription>>>> tagCalls) {
        Map<String, Map<String, String>> tagsByArn = new LinkedHashMap<>();
        for (Future<Result<List<TagDescription>>> f : tagCalls) {
            Result<List<TagDescription>> r = get(f);
            if (r.ok()) {
                for (TagDescription d : r.value()) {
                    Map<String, String> m = new TreeMap<>();
                    for (Tag t : d.tags()) {
                        m.put(t.key(), t.value() == null ? "" : t.value());
                    }
                    tagsByArn.put(d.resourceArn(), m);
                }
            }
        }
        return tagsByArn;
    }

    /** A load balancer as the model sees it, with its attributes and tags. */
    private LoadBalancerView lbView(
            LoadBalancer lb,
            Future<Result<List<LoadBalancerAttribute>>> attrsCall,
            Map<String, Map<String, String>> tagsByArn) {
        Result<List<LoadBalancerAttribute>> a = get(attrsCall);
        Map<String, String> attrs = new TreeMap<>();
        if (a.ok()) {
            a.value().forEach(x -> attrs.put(x.key(), x.value()));
        }
        List<String> zoneNames =
                lb.availabilityZones().stream().map(AvailabilityZone::zoneName).sorted().toList();
        return new LoadBalancerView(
                lb.loadBalancerArn(),
                lb.loadBalancerName(),
                lb.typeAsString(),
                lb.schemeAsString(),
                region,
                lb.vpcId(),
                zoneNames,
                attrs,
                a.ok(),
                tagsByArn.getOrDefault(lb.loadBalancerArn(), Map.of()),
                lb.dnsName());
    }

    /**
     * A target group as the model sees it, with its attributes and targets (their zones resolved).
     */
    private TargetGroupView tgView(
            TargetGroup tg,
            Future<Result<List<TargetGroupAttribute>>> attrsCall,
            Result<List<TargetHealthDescription>> h,
            Zones zones) {
        Result<List<TargetGroupAttribute>> a = get(attrsCall);
        Map<String, String> attrs = new TreeMap<>();
        if (a.ok()) {
            a.value().forEach(x -> attrs.put(x.key(), x.value()));
        }
        List<TargetView> targets = new ArrayList<>();
        if (h.ok()) {
            for (TargetHealthDescription d : h.value()) {
                String id = d.target().id();
                String az = d.target().availabilityZone();
                String src = "target";
                if (az == null || az.isBlank()) {
                    az = zones.zoneOf(tg, id);
                    src = az == null ? "unknown" : zones.sourceOf(tg);
                }
                var th = d.targetHealth();
                targets.add(
                        new TargetView(
                                id,
                                d.target().port(),
                                az,
                                src,
                                th == null ? null : th.stateAsString(),
                                th == null ? null : th.reasonAsString(),
                                th == null ? null : th.description()));
            }
        }
        var hc =
                new TargetGroupView.HealthCheck(
                        tg.healthCheckEnabled(),
                        tg.healthCheckProtocolAsString(),
                        tg.healthCheckPort(),
                        tg.healthCheckIntervalSeconds(),
                        tg.healthCheckTimeoutSeconds(),
                        tg.healthyThresholdCount(),
                        tg.unhealthyThresholdCount());
        return new TargetGroupView(
                tg.targetGroupArn(),
                tg.targetGroupName(),
                region,
                tg.protocolAsString(),
                tg.port(),
                tg.targetTypeAsString(),
                tg.vpcId(),
                hc,
                attrs,
                a.ok(),
                tg.loadBalancerArns(),
                targets,
                h.ok() ? null : h.code(),
                h.ok() ? null : AwsLiveSource.oneLine(h.message()));
    }

    private List<LoadBalancer> listLoadBalancers() {
        return whole(
                paged(
                        "DescribeLoadBalancers",
                        List.of("load balancers"),
                        () -> elb.describeLoadBalancersPaginator(b -> b.pageSize(PAGE_SIZE)),
                        DescribeLoadBalancersResponse::loadBalancers,
                        DescribeLoadBalancersResponse::nextMarker));
    }

    private List<TargetGroup> listTargetGroups() {
        return whole(
                paged(
                        "DescribeTargetGroups",
                        List.of("target groups"),
                        () -> elb.describeTargetGroupsPaginator(b -> b.pageSize(PAGE_SIZE)),
                        DescribeTargetGroupsResponse::targetGroups,
                        DescribeTargetGroupsResponse::nextMarker));
    }

    /**
     * A Describe list whole, or empty when it failed part-way; null when its first page reached no
     * endpoint.
     */
    private static <T> List<T> whole(Result<List<T>> r) {
        return r.ok() ? r.value() : "Unreachable".equals(r.code()) ? null : List.of();
    }

    /**
     * Every page of a paged call, from the SDK's paginator (which sends each page's NextMarker /
     * NextToken as the next request's Marker / NextToken). A list is used whole or not at all: when
     * a page fails, or the endpoint repeats a marker, pages past {@link #MAX_PAGES} or the list
     * outlives its deadline, the call is failed in the coverage (naming {@code objects}) and the
     * result is failed; with code Unreachable when the first page reached no endpoint at all.
     *
     * <p>The guards stay here because the paginator has none: in AWS SDK 2.57.8 the generated
     * fetchers (e.g. {@code
     * DescribeLoadBalancersIterable.DescribeLoadBalancersResponseFetcher.hasNextPage}) ask for
     * another page as long as {@code PaginatorUtils.isOutputTokenAvailable(nextMarker())} holds,
     * i.e. the marker is neither null nor the empty string (javap on the jar; PaginatorUtils'
     * source says the same). A marker sent again, or a new one forever, makes it page without end;
     * the SDK stops on a repeated token only for the few APIs it customises for that (CloudWatch
     * Logs GetLogEvents, aws/aws-sdk-java-v2#1045), not ELBv2 or EC2. The paginator is lazy: each
     * {@code next()} of its iterator is one call (retried by the SDK like any call), so the checks
     * run before the next page is asked for, and stopping is simply not asking.
     */
    private <R, T> Result<List<T>> paged(
            String api,
            List<String> objects,
            Supplier<SdkIterable<R>> paginator,
            Function<R, List<T>> items,
            Function<R, String> nextMarker) {
        List<T> all = new ArrayList<>();
        PageGuard guard =
                new PageGuard(
                        "the endpoint",
                        api.startsWith("ec2:") ? "NextToken" : "NextMarker",
                        MAX_PAGES,
                        api.startsWith("ec2:") ? "pages" : "pages of " + PAGE_SIZE,
                        listDeadlineMs);
        Iterator<R> pages = paginator.get().iterator();
        int read = 0;
        while (true) {
            Result<R> r = call(api, objects, pages::next);
            read++;
            if (!r.ok()) {
                boolean unreachable = "ClientError".equals(r.code()) && read == 1;
                return new Result<>(
                        null, unreachable ? "Unreachable" : r.code(), r.message(), r.status());
            }
            all.addAll(items.apply(r.value()));
            // a blank marker ends the list (the paginator would send one made of spaces as the next
            // Marker)
            String marker = blankToNull(nextMarker.apply(r.value()));
            if (marker == null) {
                return new Result<>(all, null, null, null);
            }
            PageGuard.Stop guarded = guard.stop(marker, read);
            String stop = guarded == null ? null : guarded.message();
            if (stop != null) {
                Tally t = tally(api);
                t.failed.addAll(objects);
                t.failedWhy = stop + "; stopped, nothing of it used";
                return new Result<>(null, "Paging", stop, Coverage.Status.FAILED);
            }
        }
    }

    /** Zones of targets whose DescribeTargetHealth entry has no AvailabilityZone. */
    private static final class Zones {
        final Map<String, List<String[]>> subnetsByVpc =
                new LinkedHashMap<>(); // vpc -> [cidr, zone]
        final Map<String, String> instanceZone = new LinkedHashMap<>();

        String zoneOf(TargetGroup tg, String id) {
            String type = tg.targetTypeAsString();
            if ("instance".equals(type)) {
                return instanceZone.get(id);
            }
            if ("ip".equals(type)) {
                for (String[] s : subnetsByVpc.getOrDefault(tg.vpcId(), List.of())) {
                    if (Cidr.contains(s[0], id)) {
                        return s[1];
                    }
                }
            }
            return null;
        }

        String sourceOf(TargetGroup tg) {
            return "instance".equals(tg.targetTypeAsString()) ? "instance" : "subnet";
        }
    }

    private Zones resolveZones(
            Map<String, TargetGroup> tgs,
            Map<String, Result<List<TargetHealthDescription>>> health) {
        Set<String> vpcs = new LinkedHashSet<>();
        Set<String> instances = new LinkedHashSet<>();
        int ipTargets = 0;
        for (var e : health.entrySet()) {
            if (!e.getValue().ok()) {
                continue;
            }
            TargetGroup tg = tgs.get(e.getKey());
            for (TargetHealthDescription d : e.getValue().value()) {
                if (d.target().availabilityZone() != null
                        && !d.target().availabilityZone().isBlank()) {
                    continue;
                }
                if ("instance".equals(tg.targetTypeAsString())) {
                    instances.add(d.target().id());
                } else if ("ip".equals(tg.targetTypeAsString()) && tg.vpcId() != null) {
                    vpcs.add(tg.vpcId());
                    ipTargets++;
                }
            }
        }
        Zones z = new Zones();
        List<Future<Result<List<Subnet>>>> subnetCalls = new ArrayList<>();
        List<String> vpcList = List.copyOf(vpcs);
        for (int i = 0; i < vpcList.size(); i += VPCS_PER_CALL) {
            List<String> batch = vpcList.subList(i, Math.min(vpcList.size(), i + VPCS_PER_CALL));
            int n = ipTargets;
            subnetCalls.add(pool.submit(() -> subnets(batch, n)));
        }
        List<Future<Result<List<Instance>>>> instanceCalls = new ArrayList<>();
        List<String> ids = List.copyOf(instances);
        for (int i = 0; i < ids.size(); i += INSTANCES_PER_CALL) {
            List<String> batch = ids.subList(i, Math.min(ids.size(), i + INSTANCES_PER_CALL));
            instanceCalls.add(pool.submit(() -> instances(batch)));
        }
        for (var f : subnetCalls) {
            Result<List<Subnet>> r = get(f);
            if (r.ok()) {
                for (Subnet s : r.value()) {
                    List<String[]> l =
                            z.subnetsByVpc.computeIfAbsent(s.vpcId(), k -> new ArrayList<>());
                    if (s.cidrBlock() != null) {
                        l.add(new String[] {s.cidrBlock(), s.availabilityZone()});
                    }
                    for (SubnetIpv6CidrBlockAssociation a : s.ipv6CidrBlockAssociationSet()) {
                        if (a.ipv6CidrBlock() != null) {
                            l.add(new String[] {a.ipv6CidrBlock(), s.availabilityZone()});
                        }
                    }
                }
            }
        }
        for (var f : instanceCalls) {
            Result<List<Instance>> r = get(f);
            if (r.ok()) {
                for (Instance i : r.value()) {
                    if (i.placement() != null && i.placement().availabilityZone() != null) {
                        z.instanceZone.put(i.instanceId(), i.placement().availabilityZone());
                    }
                }
            }
        }
        return z;
    }

    private Result<List<Subnet>> subnets(List<String> vpcs, int ipTargets) {
        return paged(
                "ec2:DescribeSubnets",
                List.of("zones of " + ipTargets + " ip targets"),
                () ->
                        ec2.get()
                                .describeSubnetsPaginator(
                                        b ->
                                                b.filters(
                                                        Filter.builder()
                                                                .name("vpc-id")
                                                                .values(vpcs)
                                                                .build())),
                DescribeSubnetsResponse::subnets,
                DescribeSubnetsResponse::nextToken);
    }

    private Result<List<Instance>> instances(List<String> ids) {
        return paged(
                "ec2:DescribeInstances",
                List.of("zones of " + ids.size() + " instance targets"),
                () ->
                        ec2.get()
                                .describeInstancesPaginator(
                                        b ->
                                                b.filters(
                                                        Filter.builder()
                                                                .name("instance-id")
                                                                .values(ids)
                                                                .build())),
                r -> r.reservations().stream().flatMap(res -> res.instances().stream()).toList(),
                DescribeInstancesResponse::nextToken);
    }

    private static final Map<String, String> NOT_CHECKED =
            Map.of(
                    "DescribeLoadBalancers", "load balancers not listed: none of them checked",
                    "DescribeTargetGroups",
                            "target groups not listed: their health checks, cross-zone overrides and target"
                                    + " health not checked",
                    "DescribeLoadBalancerAttributes",
                            "cross-zone and zonal-shift settings not checked for load balancers",
                    "DescribeTargetGroupAttributes",
                            "cross-zone overrides not checked for target groups",
                    "DescribeTargetHealth", "target health not checked for target groups",
                    "DescribeTags", "Kubernetes objects behind these load balancers not named:",
                    "ec2:DescribeSubnets", "unknown, not checked by zone:",
                    "ec2:DescribeInstances", "unknown, not checked by zone:");

    /**
     * One coverage entry per API that answered, one per API and status that did not, naming what is
     * missing.
     */
    private void report(int lbCount, int tgCount) {
        for (var e : new TreeMap<>(tallies).entrySet()) {
            String api = e.getKey();
            Tally t = e.getValue();
            String scope = api + " " + region;
            if (t.denied.isEmpty() && t.failed.isEmpty()) {
                long count =
                        switch (api) {
                            case "DescribeLoadBalancers",
                                    "DescribeLoadBalancerAttributes",
                                    "DescribeTags" ->
                                    lbCount;
                            case "DescribeTargetGroups",
                                    "DescribeTargetGroupAttributes",
                                    "DescribeTargetHealth" ->
                                    tgCount;
                            default -> t.ok.get();
                        };
                out.read("aws", scope, count);
                continue;
            }
            entry(api, scope, Coverage.Status.DENIED, t.denied, t.deniedWhy);
            entry(api, scope, Coverage.Status.FAILED, t.failed, t.failedWhy);
        }
    }

    private void entry(
            String api, String scope, Coverage.Status st, Collection<String> objects, String why) {
        if (objects.isEmpty()) {
            return;
        }
        List<String> names = new ArrayList<>(new LinkedHashSet<>(objects));
        Collections.sort(names);
        String what = NOT_CHECKED.getOrDefault(api, "not checked:");
        String list =
                names.size() <= 5
                        ? String.join(", ", names)
                        : String.join(", ", names.subList(0, 5))
                                + " and "
                                + (names.size() - 5)
                                + " more";
        String detail;
        if (api.equals("DescribeLoadBalancers") || api.equals("DescribeTargetGroups")) {
            detail = why + "; " + what;
        } else if (api.startsWith("ec2:")) {
            detail =
                    why + "; " + list + " " + what.replace(":", "") + " (rules say 'zone unknown')";
        } else {
            detail = why + "; " + what + " " + list;
        }
        out.notRead("aws", scope, st, detail);
    }

    private static String blankToNull(String s) {
        return s == null || s.isBlank() ? null : s;
    }

    private static <T> T get(Future<T> f) {
        try {
            return f.get();
        } catch (ExecutionException e) {
            throw Futures.rethrow(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
