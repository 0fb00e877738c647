package dev.deja.source.aws;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;

/**
 * A fake ELBv2 + EC2 endpoint on loopback speaking the AWS Query protocol: form-encoded {@code
 * Action=...} POSTs in, XML out, shaped like the examples of the API references (namespaces
 * included), errors as {@code ErrorResponse} (ELBv2) and {@code Response/Errors} (EC2). Stateful
 * enough for pagination with Marker, a Throttling error followed by success, AccessDenied on one
 * action, HealthUnavailable for one target group, expired credentials and a fixed latency per call.
 * Counts every request it receives, per action.
 */
public final class FakeAws implements AutoCloseable {
    static final String ELB_NS = "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/";
    static final String EC2_NS = "http://ec2.amazonaws.com/doc/2016-11-15/";
    public static final String ACCOUNT = "123456789012";

    record Lb(
            String arn,
            String name,
            String type,
            String scheme,
            String vpc,
            List<String[]> zones) {}

    record Tg(
            String arn,
            String name,
            String type,
            String vpc,
            int interval,
            int timeout,
            int healthy,
            int unhealthy,
            List<String> lbArns) {}

    record Target(
            String id, int port, String az, String state, String reason, String description) {}

    private final HttpServer server;
    private final ExecutorService executor;
    private final String region;
    final List<Lb> lbs = new CopyOnWriteArrayList<>();
    final List<Tg> tgs = new CopyOnWriteArrayList<>();
    final Map<String, List<Target>> targets = new ConcurrentHashMap<>();
    final Map<String, Map<String, String>> attributes = new ConcurrentHashMap<>();
    final Map<String, Map<String, String>> tags = new ConcurrentHashMap<>();
    final List<String[]> subnets = new CopyOnWriteArrayList<>(); // id, vpc, cidr, az
    final Map<String, String> instances = new ConcurrentHashMap<>();

    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();
    private final Set<String> denied = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> throttles = new ConcurrentHashMap<>();
    private final Map<String, String[]> healthErrors =
            new ConcurrentHashMap<>(); // tg arn -> status, code, message
    private final Set<String> scopes = ConcurrentHashMap.newKeySet();
    private final Set<String> accessKeys = ConcurrentHashMap.newKeySet();
    private final List<String> problems = new CopyOnWriteArrayList<>();
    private volatile int maxPageSize = 400;
    private volatile long latencyMillis;
    private volatile boolean expired;

    /** The account this fake plays (ARNs, GetCallerIdentity). */
    final String account;

    /** Access keys handed out by AssumeRole -> the fake of the account assumed into. */
    private final Map<String, FakeAws> routes = new ConcurrentHashMap<>();

    /** Role ARN -> the fake of that role's account. */
    private final Map<String, FakeAws> roles = new ConcurrentHashMap<>();

    private final List<String> assumeRoleCalls = new CopyOnWriteArrayList<>();

    private FakeAws(String region, int threads) throws IOException {
        this(region, threads, ACCOUNT);
    }

    private FakeAws(String region, int threads, String account) throws IOException {
        this.region = region;
        this.account = account;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        executor =
                Executors.newFixedThreadPool(
                        threads,
                        r -> {
                            Thread t = new Thread(r, "fake-aws");
                            t.setDaemon(true);
                            return t;
                        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public static FakeAws start(String region) throws IOException {
        // The JDK server writes headers and body separately; without TCP_NODELAY, Nagle's algorithm
        // and the client's
        // delayed ACK add ~40 ms to every response on loopback, which no real AWS endpoint does.
        // Read once, when the
        // first server of the JVM is created.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        return new FakeAws(region, 32);
    }

    /**
     * A second account served by this endpoint: {@code AssumeRole} of {@code roleArn} (signed with
     * any key) hands out credentials whose requests {@code other} answers, as if the endpoint were
     * that account's.
     */
    public void assumable(String roleArn, FakeAws other) {
        roles.put(roleArn, other);
    }

    /**
     * A fake for another account, with no server of its own: reach it through {@link #assumable}.
     */
    public static FakeAws account(String region, String account) throws IOException {
        System.setProperty("sun.net.httpserver.nodelay", "true");
        return new FakeAws(region, 2, account);
    }

    /** "ROLE SESSION EXTERNALID SIGNINGKEY" of every AssumeRole call. */
    public List<String> assumeRoleCalls() {
        return assumeRoleCalls;
    }

    public String url() {
        return "http://"
                + server.getAddress().getHostString()
                + ":"
                + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    // ---- scenario

    public String lb(String name, String type, String... zones) {
        String kind = "network".equals(type) ? "net" : "application".equals(type) ? "app" : "gwy";
        String arn =
                "arn:aws:elasticloadbalancing:"
                        + region
                        + ":"
                        + account
                        + ":loadbalancer/"
                        + kind
                        + "/"
                        + name
                        + "/"
                        + Integer.toHexString(name.hashCode());
        List<String[]> z = new ArrayList<>();
        for (int i = 0; i < zones.length; i++) {
            z.add(new String[] {zones[i], "subnet-" + i + Integer.toHexString(name.hashCode())});
        }
        lbs.add(new Lb(arn, name, type, "internet-facing", "vpc-1", z));
        return arn;
    }

    public String tg(
            String name,
            String targetType,
            int interval,
            int timeout,
            int unhealthy,
            String... lbArns) {
        String arn =
                "arn:aws:elasticloadbalancing:"
                        + region
                        + ":"
                        + account
                        + ":targetgroup/"
                        + name
                        + "/"
                        + Integer.toHexString(name.hashCode());
        tgs.add(
                new Tg(
                        arn,
                        name,
                        targetType,
                        "vpc-1",
                        interval,
                        timeout,
                        3,
                        unhealthy,
                        List.of(lbArns)));
        targets.put(arn, new CopyOnWriteArrayList<>());
        return arn;
    }

    public void target(
            String tgArn,
            String id,
            int port,
            String az,
            String state,
            String reason,
            String description) {
        targets.get(tgArn).add(new Target(id, port, az, state, reason, description));
    }

    public void attribute(String arn, String key, String value) {
        attributes.computeIfAbsent(arn, k -> new ConcurrentHashMap<>()).put(key, value);
    }

    public void tag(String arn, String key, String value) {
        tags.computeIfAbsent(arn, k -> new ConcurrentHashMap<>()).put(key, value);
    }

    public void subnet(String id, String vpc, String cidr, String az) {
        subnets.add(new String[] {id, vpc, cidr, az});
    }

    public void instance(String id, String az) {
        instances.put(id, az);
    }

    public void deny(String action) {
        denied.add(action);
    }

    /** The next {@code times} requests of the action get a Throttling error. */
    public void throttle(String action, int times) {
        throttles.put(action, new AtomicInteger(times));
    }

    public void healthUnavailable(String tgArn) {
        healthError(
                tgArn,
                500,
                "HealthUnavailable",
                "The health of the specified targets could not be retrieved due"
                        + " to an internal error.");
    }

    /** Every DescribeTargetHealth of the group answers with this error. */
    public void healthError(String tgArn, int status, String code, String message) {
        healthErrors.put(tgArn, new String[] {Integer.toString(status), code, message});
    }

    /**
     * "eu-west-2/elasticloadbalancing", ... : the region and service of every SigV4 credential
     * scope seen.
     */
    public Set<String> signingScopes() {
        return Collections.unmodifiableSet(scopes);
    }

    private volatile BiFunction<String, Map<String, String>, Object[]> hostile;

    /**
     * A hostile endpoint: {@code (action, params) -> {status, body}} answers instead of the fake (a
     * body not starting with '<' is wrapped as the action's result), or null to answer normally.
     */
    public void hostile(BiFunction<String, Map<String, String>, Object[]> h) {
        hostile = h;
    }

    public void maxPageSize(int n) {
        maxPageSize = n;
    }

    /**
     * Holds each of the next {@code parties} calls of {@code action} until all of them have arrived
     * (at most {@code timeoutMillis}): {@link #rendezvousMet()} then tells whether they were in
     * flight at the same time.
     */
    public void rendezvous(String action, int parties, long timeoutMillis) {
        rendezvousAction = action;
        rendezvousTimeout = timeoutMillis;
        rendezvousMet = false;
        rendezvousMissed = false;
        rendezvous = new CountDownLatch(parties);
    }

    public boolean rendezvousMet() {
        return rendezvousMet && !rendezvousMissed;
    }

    private volatile String rendezvousAction;
    private volatile long rendezvousTimeout;
    private volatile CountDownLatch rendezvous;
    private volatile boolean rendezvousMet;
    private volatile boolean rendezvousMissed;

    public void latency(long millis) {
        latencyMillis = millis;
    }

    public void expiredCredentials() {
        expired = true;
    }

    // ---- observations

    public int calls(String action) {
        AtomicInteger n = calls.get(action);
        return n == null ? 0 : n.get();
    }

    public int totalCalls() {
        return total.get();
    }

    public Map<String, Integer> callsByAction() {
        Map<String, Integer> m = new TreeMap<>();
        calls.forEach((k, v) -> m.put(k, v.get()));
        return m;
    }

    /** Access key ids seen in the Authorization headers. */
    public Set<String> accessKeys() {
        return Collections.unmodifiableSet(accessKeys);
    }

    /** Requests the fake found malformed (should stay empty). */
    public List<String> problems() {
        return problems;
    }

    /**
     * STS: the role and token of every AssumeRoleWithWebIdentity call; the credentials it hands
     * out.
     */
    public static final String WEB_IDENTITY_KEY = "ASIADEJAWEBIDENTITY";

    private final List<String> webIdentityCalls = new CopyOnWriteArrayList<>();

    public List<String> webIdentityCalls() {
        return webIdentityCalls;
    }

    private void assumeRoleWithWebIdentity(HttpExchange ex, Map<String, String> p)
            throws IOException {
        if (!"2011-06-15".equals(p.get("Version"))) {
            problems.add("AssumeRoleWithWebIdentity: API version " + p.get("Version"));
        }
        webIdentityCalls.add(
                p.get("RoleArn")
                        + " "
                        + p.get("RoleSessionName")
                        + " "
                        + p.get("WebIdentityToken"));
        send(
                ex,
                200,
                "<AssumeRoleWithWebIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">\n"
                        + "  <AssumeRoleWithWebIdentityResult>\n"
                        + "    <Credentials>\n"
                        + "      <AccessKeyId>"
                        + WEB_IDENTITY_KEY
                        + "</AccessKeyId>\n"
                        + "      <SecretAccessKey>web-identity-secret</SecretAccessKey>\n"
                        + "      <SessionToken>web-identity-session-token</SessionToken>\n"
                        + "      <Expiration>2099-01-01T00:00:00Z</Expiration>\n"
                        + "    </Credentials>\n"
                        + "    <AssumedRoleUser>\n"
                        + "      <Arn>arn:aws:sts::"
                        + ACCOUNT
                        + ":assumed-role/deja/"
                        + esc(p.get("RoleSessionName"))
                        + "</Arn>\n"
                        + "      <AssumedRoleId>AROADEJA:"
                        + esc(p.get("RoleSessionName"))
                        + "</AssumedRoleId>\n"
                        + "    </AssumedRoleUser>\n"
                        + "    <SubjectFromWebIdentityToken>system:serviceaccount:deja:deja</SubjectFromWebIdentityToken>\n"
                        + "  </AssumeRoleWithWebIdentityResult>\n"
                        + "  <ResponseMetadata><RequestId>r-sts</RequestId></ResponseMetadata>\n"
                        + "</AssumeRoleWithWebIdentityResponse>\n");
    }

    /**
     * STS AssumeRole (of a role made {@link #assumable}) and GetCallerIdentity, signed, as the STS
     * API reference shows them.
     */
    private void sts(HttpExchange ex, String action, Map<String, String> p, String auth)
            throws IOException {
        String ns = "https://sts.amazonaws.com/doc/2011-06-15/";
        if (!"2011-06-15".equals(p.get("Version"))) {
            problems.add(action + ": API version " + p.get("Version"));
        }
        if (auth == null) {
            problems.add(action + ": unsigned");
        }
        if (action.equals("GetCallerIdentity")) {
            send(
                    ex,
                    200,
                    "<GetCallerIdentityResponse xmlns=\""
                            + ns
                            + "\">\n  <GetCallerIdentityResult>\n"
                            + "    <Arn>arn:aws:iam::"
                            + account
                            + ":user/deja</Arn>\n    <UserId>AIDADEJA</UserId>\n"
                            + "    <Account>"
                            + account
                            + "</Account>\n  </GetCallerIdentityResult>\n"
                            + "  <ResponseMetadata><RequestId>r-id</RequestId></ResponseMetadata>\n</GetCallerIdentityResponse>\n");
            return;
        }
        String role = p.get("RoleArn");
        int c = auth == null ? -1 : auth.indexOf("Credential=");
        assumeRoleCalls.add(
                role
                        + " "
                        + p.get("RoleSessionName")
                        + " "
                        + p.get("ExternalId")
                        + " "
                        + (c < 0 ? "-" : auth.substring(c + 11, auth.indexOf('/', c))));
        FakeAws other = roles.get(role);
        if (other == null) {
            send(
                    ex,
                    403,
                    "<ErrorResponse xmlns=\""
                            + ns
                            + "\"><Error><Type>Sender</Type><Code>AccessDenied</Code>"
                            + "<Message>User: arn:aws:iam::"
                            + account
                            + ":user/deja is not authorized to perform:"
                            + " sts:AssumeRole on resource: "
                            + esc(role)
                            + "</Message></Error><RequestId>r</RequestId></ErrorResponse>");
            return;
        }
        String key = "ASIA" + other.account;
        routes.put(key, other);
        send(
                ex,
                200,
                "<AssumeRoleResponse xmlns=\""
                        + ns
                        + "\">\n  <AssumeRoleResult>\n    <Credentials>\n"
                        + "      <AccessKeyId>"
                        + key
                        + "</AccessKeyId>\n      <SecretAccessKey>assumed-secret</SecretAccessKey>\n"
                        + "      <SessionToken>assumed-token</SessionToken>\n      <Expiration>2099-01-01T00:00:00Z</Expiration>\n"
                        + "    </Credentials>\n    <AssumedRoleUser>\n      <Arn>arn:aws:sts::"
                        + other.account
                        + ":assumed-role/"
                        + esc(role.substring(role.lastIndexOf('/') + 1))
                        + "/"
                        + esc(p.get("RoleSessionName"))
                        + "</Arn>\n"
                        + "      <AssumedRoleId>AROADEJA:"
                        + esc(p.get("RoleSessionName"))
                        + "</AssumedRoleId>\n"
                        + "    </AssumedRoleUser>\n  </AssumeRoleResult>\n"
                        + "  <ResponseMetadata><RequestId>r-assume</RequestId></ResponseMetadata>\n</AssumeRoleResponse>\n");
    }

    // ---- protocol

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String auth0 = ex.getRequestHeaders().getFirst("Authorization");
            if (auth0 != null && auth0.indexOf("Credential=") >= 0) {
                int c = auth0.indexOf("Credential=");
                FakeAws other = routes.get(auth0.substring(c + 11, auth0.indexOf('/', c)));
                if (other != null) {
                    other.serve(ex, body);
                    return;
                }
            }
            serve(ex, body);
        }
    }

    private void serve(HttpExchange ex, String body) throws IOException {
        try {
            Map<String, String> p = form(body);
            String action = p.getOrDefault("Action", "");
            total.incrementAndGet();
            calls.computeIfAbsent(action, k -> new AtomicInteger()).incrementAndGet();
            String auth = ex.getRequestHeaders().getFirst("Authorization");
            if (auth != null) {
                int c = auth.indexOf("Credential=");
                if (c >= 0) {
                    String[] scope = auth.substring(c + 11, auth.indexOf(',', c)).split("/");
                    accessKeys.add(scope[0]);
                    scopes.add(scope[2] + "/" + scope[3]);
                }
            }
            CountDownLatch meet = rendezvous;
            if (meet != null && action.equals(rendezvousAction) && meet.getCount() > 0) {
                meet.countDown();
                try {
                    if (!meet.await(rendezvousTimeout, TimeUnit.MILLISECONDS)) {
                        rendezvousMissed = true; // this call waited alone: the others came after it
                    } else if (!rendezvousMissed) {
                        rendezvousMet = true;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (latencyMillis > 0) {
                try {
                    Thread.sleep(latencyMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (action.equals("AssumeRoleWithWebIdentity")) { // STS, unsigned by design
                assumeRoleWithWebIdentity(ex, p);
                return;
            }
            if (action.equals("AssumeRole") || action.equals("GetCallerIdentity")) {
                sts(ex, action, p, auth);
                return;
            }
            boolean ec2 = action.equals("DescribeSubnets") || action.equals("DescribeInstances");
            String version = p.get("Version");
            if (!(ec2 ? "2016-11-15" : "2015-12-01").equals(version)) {
                problems.add(action + ": API version " + version);
            }
            String type = ex.getRequestHeaders().getFirst("Content-Type");
            if (type == null || !type.startsWith("application/x-www-form-urlencoded")) {
                problems.add(action + ": Content-Type " + type);
            }
            if (!"POST".equals(ex.getRequestMethod()) || auth == null) {
                problems.add(
                        action + ": " + ex.getRequestMethod() + (auth == null ? " unsigned" : ""));
            }
            if (expired) {
                error(
                        ex,
                        ec2,
                        403,
                        "ExpiredToken",
                        "The security token included in the request is expired");
                return;
            }
            if (denied.contains(action)) {
                error(
                        ex,
                        ec2,
                        403,
                        ec2 ? "UnauthorizedOperation" : "AccessDenied",
                        "User: arn:aws:iam::"
                                + ACCOUNT
                                + ":user/deja is not authorized to perform: "
                                + (ec2 ? "ec2:" : "elasticloadbalancing:")
                                + action);
                return;
            }
            BiFunction<String, Map<String, String>, Object[]> h = hostile;
            Object[] answer = h == null ? null : h.apply(action, p);
            if (answer != null) { // {status, body}; a body without '<' is an action result to wrap
                String b = (String) answer[1];
                send(ex, (Integer) answer[0], b.startsWith("<") ? b : wrap(action, b));
                return;
            }
            AtomicInteger th = throttles.get(action);
            if (th != null && th.getAndDecrement() > 0) {
                error(ex, ec2, 400, "Throttling", "Rate exceeded");
                return;
            }
            String xml =
                    switch (action) {
                        case "DescribeLoadBalancers" -> describeLoadBalancers(p);
                        case "DescribeTargetGroups" -> describeTargetGroups(p);
                        case "DescribeLoadBalancerAttributes" ->
                                attributesXml(action, p.get("LoadBalancerArn"));
                        case "DescribeTargetGroupAttributes" ->
                                attributesXml(action, p.get("TargetGroupArn"));
                        case "DescribeTags" -> describeTags(p);
                        case "DescribeTargetHealth" -> {
                            String[] he = healthErrors.get(p.get("TargetGroupArn"));
                            if (he != null) {
                                error(ex, false, Integer.parseInt(he[0]), he[1], he[2]);
                                yield null;
                            }
                            yield describeTargetHealth(p);
                        }
                        case "DescribeSubnets" -> describeSubnets(p);
                        case "DescribeInstances" -> describeInstances(p);
                        default -> {
                            problems.add("unknown action " + action);
                            error(
                                    ex,
                                    ec2,
                                    400,
                                    "InvalidAction",
                                    "Could not find operation " + action);
                            yield null;
                        }
                    };
            if (xml == null) {
                return;
            }
            if (xml.startsWith("!")) {
                error(ex, false, 400, "ValidationError", xml.substring(1));
                return;
            }
            send(ex, 200, xml);
        } catch (RuntimeException e) {
            problems.add(e.toString());
            send(
                    ex,
                    500,
                    "<ErrorResponse xmlns=\""
                            + ELB_NS
                            + "\"><Error><Type>Receiver</Type><Code>InternalFailure"
                            + "</Code><Message>"
                            + esc(e.toString())
                            + "</Message></Error><RequestId>r</RequestId>"
                            + "</ErrorResponse>");
        }
    }

    private static Map<String, String> form(String body) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : body.split("&")) {
            if (kv.isEmpty()) {
                continue;
            }
            int eq = kv.indexOf('=');
            String k = URLDecoder.decode(eq < 0 ? kv : kv.substring(0, eq), StandardCharsets.UTF_8);
            String v =
                    eq < 0 ? "" : URLDecoder.decode(kv.substring(eq + 1), StandardCharsets.UTF_8);
            m.put(k, v);
        }
        return m;
    }

    private static List<String> list(Map<String, String> p, String prefix) {
        List<String> out = new ArrayList<>();
        for (int i = 1; p.containsKey(prefix + i); i++) {
            out.add(p.get(prefix + i));
        }
        return out;
    }

    private static void send(HttpExchange ex, int status, String xml) throws IOException {
        byte[] b = xml.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/xml");
        ex.getResponseHeaders().set("x-amzn-RequestId", "c5478414-0000-11e6-b98b-2f1c3ab0c2fc");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream o = ex.getResponseBody()) {
            o.write(b);
        }
    }

    private static void error(HttpExchange ex, boolean ec2, int status, String code, String message)
            throws IOException {
        if (ec2) {
            send(
                    ex,
                    status,
                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>"
                            + code
                            + "</Code><Message>"
                            + esc(message)
                            + "</Message></Error></Errors><RequestID>"
                            + "ea966190-f9aa-478e-9ede-example</RequestID></Response>");
        } else {
            send(
                    ex,
                    status,
                    "<ErrorResponse xmlns=\""
                            + ELB_NS
                            + "\">\n  <Error>\n    <Type>"
                            + (status >= 500 ? "Receiver" : "Sender")
                            + "</Type>\n    <Code>"
                            + code
                            + "</Code>\n    <Message>"
                            + esc(message)
                            + "</Message>\n  </Error>\n  <RequestId>c5478414-0000-11e6-b98b-2f1c3ab0c2fc</RequestId>\n"
                            + "</ErrorResponse>");
        }
    }

    static String esc(String s) {
        return s.replace("&", "&amp;")
                .replace("<", "&lt;")
                .replace(">", "&gt;")
                .replace("\"", "&quot;");
    }

    private static String wrap(String action, String result) {
        return "<"
                + action
                + "Response xmlns=\""
                + ELB_NS
                + "\">\n  <"
                + action
                + "Result>\n"
                + result
                + "  </"
                + action
                + "Result>\n  <ResponseMetadata>\n    <RequestId>c5478414-0000-11e6-b98b-2f1c3ab0c2fc"
                + "</RequestId>\n  </ResponseMetadata>\n</"
                + action
                + "Response>\n";
    }

    /**
     * One page: from Marker (an index) at most min(PageSize, maxPageSize) items; NextMarker when
     * more remain.
     */
    private <T> int[] page(Map<String, String> p, List<T> all) {
        int from = p.containsKey("Marker") ? Integer.parseInt(p.get("Marker")) : 0;
        int size = p.containsKey("PageSize") ? Integer.parseInt(p.get("PageSize")) : 400;
        if (size < 1 || size > 400) {
            throw new IllegalArgumentException("PageSize " + size + " out of 1-400");
        }
        size = Math.min(size, maxPageSize);
        return new int[] {from, Math.min(all.size(), from + size)};
    }

    private String describeLoadBalancers(Map<String, String> p) {
        int[] r = page(p, lbs);
        StringBuilder sb = new StringBuilder("    <LoadBalancers>\n");
        for (Lb lb : lbs.subList(r[0], r[1])) {
            sb.append("      <member>\n        <LoadBalancerArn>")
                    .append(lb.arn)
                    .append("</LoadBalancerArn>\n")
                    .append("        <Scheme>")
                    .append(lb.scheme)
                    .append("</Scheme>\n")
                    .append("        <LoadBalancerName>")
                    .append(lb.name)
                    .append("</LoadBalancerName>\n")
                    .append("        <VpcId>")
                    .append(lb.vpc)
                    .append("</VpcId>\n")
                    .append(
                            "        <CanonicalHostedZoneId>Z2P70J7EXAMPLE</CanonicalHostedZoneId>\n")
                    .append("        <CreatedTime>2016-03-25T21:26:12.920Z</CreatedTime>\n")
                    .append("        <AvailabilityZones>\n");
            for (String[] z : lb.zones) {
                sb.append("          <member>\n            <SubnetId>")
                        .append(z[1])
                        .append("</SubnetId>\n")
                        .append("            <ZoneName>")
                        .append(z[0])
                        .append("</ZoneName>\n          </member>\n");
            }
            sb.append("        </AvailabilityZones>\n        <DNSName>")
                    .append(lb.name)
                    .append(
                            "-1234567890.elb.amazonaws.com</DNSName>\n        <State>\n          <Code>active</Code>\n")
                    .append("        </State>\n        <Type>")
                    .append(lb.type)
                    .append("</Type>\n      </member>\n");
        }
        sb.append("    </LoadBalancers>\n");
        if (r[1] < lbs.size()) {
            sb.append("    <NextMarker>").append(r[1]).append("</NextMarker>\n");
        }
        return wrap("DescribeLoadBalancers", sb.toString());
    }

    private String describeTargetGroups(Map<String, String> p) {
        int[] r = page(p, tgs);
        StringBuilder sb = new StringBuilder("    <TargetGroups>\n");
        for (Tg tg : tgs.subList(r[0], r[1])) {
            sb.append("      <member>\n        <TargetGroupArn>")
                    .append(tg.arn)
                    .append("</TargetGroupArn>\n")
                    .append("        <HealthCheckTimeoutSeconds>")
                    .append(tg.timeout)
                    .append("</HealthCheckTimeoutSeconds>\n")
                    .append("        <HealthCheckPort>traffic-port</HealthCheckPort>\n")
                    .append("        <TargetGroupName>")
                    .append(tg.name)
                    .append("</TargetGroupName>\n")
                    .append("        <HealthCheckProtocol>TCP</HealthCheckProtocol>\n")
                    .append("        <HealthCheckEnabled>true</HealthCheckEnabled>\n")
                    .append("        <HealthCheckIntervalSeconds>")
                    .append(tg.interval)
                    .append("</HealthCheckIntervalSeconds>\n")
                    .append("        <HealthyThresholdCount>")
                    .append(tg.healthy)
                    .append("</HealthyThresholdCount>\n")
                    .append("        <Protocol>TCP</Protocol>\n        <Port>80</Port>\n")
                    .append("        <VpcId>")
                    .append(tg.vpc)
                    .append("</VpcId>\n")
                    .append("        <UnhealthyThresholdCount>")
                    .append(tg.unhealthy)
                    .append("</UnhealthyThresholdCount>\n")
                    .append("        <TargetType>")
                    .append(tg.type)
                    .append("</TargetType>\n")
                    .append("        <LoadBalancerArns>\n");
            for (String a : tg.lbArns) {
                sb.append("          <member>").append(a).append("</member>\n");
            }
            sb.append("        </LoadBalancerArns>\n      </member>\n");
        }
        sb.append("    </TargetGroups>\n");
        if (r[1] < tgs.size()) {
            sb.append("    <NextMarker>").append(r[1]).append("</NextMarker>\n");
        }
        return wrap("DescribeTargetGroups", sb.toString());
    }

    private String attributesXml(String action, String arn) {
        if (arn == null) {
            return "!missing ARN";
        }
        StringBuilder sb = new StringBuilder("    <Attributes>\n");
        attributes
                .getOrDefault(arn, Map.of())
                .forEach(
                        (k, v) ->
                                sb.append("      <member>\n        <Value>")
                                        .append(esc(v))
                                        .append("</Value>\n        <Key>")
                                        .append(esc(k))
                                        .append("</Key>\n      </member>\n"));
        sb.append("    </Attributes>\n");
        return wrap(action, sb.toString());
    }

    private String describeTags(Map<String, String> p) {
        List<String> arns = list(p, "ResourceArns.member.");
        if (arns.isEmpty() || arns.size() > 20) {
            return "!ResourceArns must hold 1 to 20 ARNs, got " + arns.size();
        }
        StringBuilder sb = new StringBuilder("    <TagDescriptions>\n");
        for (String a : arns) {
            sb.append("      <member>\n        <ResourceArn>")
                    .append(a)
                    .append("</ResourceArn>\n        <Tags>\n");
            tags.getOrDefault(a, Map.of())
                    .forEach(
                            (k, v) ->
                                    sb.append("          <member>\n            <Value>")
                                            .append(esc(v))
                                            .append("</Value>\n            <Key>")
                                            .append(esc(k))
                                            .append("</Key>\n          </member>\n"));
            sb.append("        </Tags>\n      </member>\n");
        }
        sb.append("    </TagDescriptions>\n");
        return wrap("DescribeTags", sb.toString());
    }

    private String describeTargetHealth(Map<String, String> p) {
        List<Target> ts = targets.get(p.get("TargetGroupArn"));
        if (ts == null) {
            return "!TargetGroupNotFound";
        }
        StringBuilder sb = new StringBuilder("    <TargetHealthDescriptions>\n");
        for (Target t : ts) {
            sb.append("      <member>\n        <HealthCheckPort>")
                    .append(t.port)
                    .append("</HealthCheckPort>\n")
                    .append("        <TargetHealth>\n          <State>")
                    .append(t.state)
                    .append("</State>\n");
            if (t.reason != null) {
                sb.append("          <Reason>").append(t.reason).append("</Reason>\n");
            }
            if (t.description != null) {
                sb.append("          <Description>")
                        .append(esc(t.description))
                        .append("</Description>\n");
            }
            sb.append("        </TargetHealth>\n        <Target>\n          <Port>")
                    .append(t.port)
                    .append("</Port>\n")
                    .append("          <Id>")
                    .append(t.id)
                    .append("</Id>\n");
            if (t.az != null) {
                sb.append("          <AvailabilityZone>")
                        .append(t.az)
                        .append("</AvailabilityZone>\n");
            }
            sb.append("        </Target>\n      </member>\n");
        }
        sb.append("    </TargetHealthDescriptions>\n");
        return wrap("DescribeTargetHealth", sb.toString());
    }

    private Map<String, List<String>> filters(Map<String, String> p) {
        Map<String, List<String>> f = new LinkedHashMap<>();
        for (int i = 1; p.containsKey("Filter." + i + ".Name"); i++) {
            f.put(p.get("Filter." + i + ".Name"), list(p, "Filter." + i + ".Value."));
        }
        return f;
    }

    private String describeSubnets(Map<String, String> p) {
        List<String> vpcs = filters(p).get("vpc-id");
        StringBuilder sb =
                new StringBuilder(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeSubnetsResponse xmlns=\""
                                + EC2_NS
                                + "\">\n  <requestId>7a62c49f-347e-4fc4-9331-6e8eEXAMPLE</requestId>\n  <subnetSet>\n");
        for (String[] s : subnets) {
            if (vpcs != null && !vpcs.contains(s[1])) {
                continue;
            }
            sb.append("    <item>\n      <subnetId>")
                    .append(s[0])
                    .append("</subnetId>\n      <state>available</state>\n")
                    .append("      <vpcId>")
                    .append(s[1])
                    .append("</vpcId>\n      <cidrBlock>")
                    .append(s[2])
                    .append(
                            "</cidrBlock>\n      <ipv6CidrBlockAssociationSet/>\n      <availableIpAddressCount>251"
                                    + "</availableIpAddressCount>\n      <availabilityZone>")
                    .append(s[3])
                    .append(
                            "</availabilityZone>\n      <defaultForAz>false</defaultForAz>\n    </item>\n");
        }
        sb.append("  </subnetSet>\n</DescribeSubnetsResponse>\n");
        return sb.toString();
    }

    private String describeInstances(Map<String, String> p) {
        List<String> ids = filters(p).get("instance-id");
        if (ids == null || ids.size() > 200) {
            return "!instance-id filter must hold 1 to 200 values";
        }
        StringBuilder sb =
                new StringBuilder(
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DescribeInstancesResponse xmlns=\""
                                + EC2_NS
                                + "\">\n  <requestId>8f7724cf-496f-496e-8fe3-example</requestId>\n  <reservationSet>\n"
                                + "    <item>\n      <reservationId>r-1234567890abcdef0</reservationId>\n      <ownerId>"
                                + ACCOUNT
                                + "</ownerId>\n      <instancesSet>\n");
        for (String id : ids) {
            String az = instances.get(id);
            if (az == null) {
                continue; // a filter does not fail on unknown ids, it matches nothing
            }
            sb.append("        <item>\n          <instanceId>")
                    .append(id)
                    .append("</instanceId>\n")
                    .append(
                            "          <instanceState><code>16</code><name>running</name></instanceState>\n")
                    .append("          <placement>\n            <availabilityZone>")
                    .append(az)
                    .append(
                            "</availabilityZone>\n            <tenancy>default</tenancy>\n          </placement>\n")
                    .append("        </item>\n");
        }
        sb.append(
                "      </instancesSet>\n    </item>\n  </reservationSet>\n</DescribeInstancesResponse>\n");
        return sb.toString();
    }
}
