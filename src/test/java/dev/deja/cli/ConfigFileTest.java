package dev.deja.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.deja.TestSupport;
import dev.deja.engine.Catalog;
import dev.deja.engine.InputException;
import dev.deja.engine.Severity;
import dev.deja.engine.SnapshotBuilder;
import dev.deja.report.ReportFixtures;
import dev.deja.snapshot.SnapshotFile;
import java.io.ByteArrayInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConfigFileTest {
    static final Catalog CATALOG = ReportFixtures.catalog();
    static final Path DIR = Path.of("/etc/deja");

    static final String FULL =
            """
            sources:
              paths: [manifests/]
              haproxy:
                paths: [/etc/haproxy/haproxy.cfg]
                configMaps: [ingress/haproxy-config]
                version: "2.8"
                env: {PORT: "8080"}
                assumeClientRps: 500
              cluster:
                context: prod
                namespaces: [ingress, payments]
                selector: tier=edge
                annotationSuppressions: false
              aws:
                profile: audit
                regions: [eu-west-2, us-east-1]
            rules:
              disabled: [aws-nlb-zone-health-hidden]
              severity:
                haproxy-tarpit-holds-slots: critical
              minSeverity: low
            failOn: high
            allowPartial: true
            suppressions:
              - rule: kube-lb-pods-fail-together
                object: Deployment/staging/*
                reason: staging has one replica by design
                expires: 2099-01-01
            outputs:
              - {format: json, path: /reports/deja.json}
              - {format: html, path: reports/deja.html}
            baseline: configmap:deja/deja-report
            notify: env:SLACK_WEBHOOK_URL
            pushgateway: http://pushgateway.monitoring:9091
            """;

    static ConfigFile parse(String yaml) {
        return ConfigFile.parse(yaml, "deja.yaml", DIR, CATALOG);
    }

    @Test
    void readsEverySection() {
        ConfigFile c = parse(FULL);
        assertEquals(List.of("/etc/deja/manifests", "/etc/haproxy/haproxy.cfg"), c.paths);
        assertEquals(List.of("ingress/haproxy-config"), c.haproxyConfigMaps);
        assertEquals(List.of("2.8"), c.option("--haproxy-version"));
        assertEquals(Map.of("PORT", "8080"), c.env);
        assertEquals(List.of("500"), c.option("--assume-client-rps"));
        assertEquals(
                List.of("true"),
                c.option("--cluster"),
                "a cluster section enables the cluster source");
        assertEquals(List.of("ingress", "payments"), c.option("--namespace"));
        assertEquals(
                List.of("true"),
                c.option("--no-annotation-suppressions"),
                "annotationSuppressions: false");
        assertEquals(List.of("eu-west-2", "us-east-1"), c.option("--region"));
        assertEquals(List.of("aws-nlb-zone-health-hidden"), c.option("--skip-rules"));
        assertEquals(Map.of("haproxy-tarpit-holds-slots", Severity.CRITICAL), c.severityOverrides);
        assertEquals(List.of("low"), c.option("--min-severity"));
        assertEquals(List.of("high"), c.option("--fail-on"));
        assertEquals(1, c.suppressions.entries().size());
        assertEquals(
                "deja.yaml:25",
                c.suppressions.entries().get(0).origin(),
                "suppression origin is file:line");
        assertEquals(
                List.of("json=/reports/deja.json", "html=/etc/deja/reports/deja.html"),
                c.option("--output"));
        assertEquals(List.of("configmap:deja/deja-report"), c.option("--baseline"));
        assertEquals(List.of("env:SLACK_WEBHOOK_URL"), c.option("--notify"));
    }

    static void refused(String yaml, String expected) {
        InputException e = assertThrows(InputException.class, () -> parse(yaml));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    @Test
    void unknownKeysAndBadValuesNameFileAndLine() {
        refused("sources:\n  clutser: {}\n", "deja.yaml:2: unknown key 'clutser' in sources");
        InputException misspelt =
                assertThrows(InputException.class, () -> parse("sources:\n  clutser: {}\n"));
        assertTrue(
                misspelt.getMessage().endsWith(" (did you mean cluster?)"), misspelt.getMessage());
        refused("failOn: high\nouputs: []\n", "deja.yaml:2: unknown key 'ouputs' in the top level");
        refused(
                "sources:\n  cluster:\n    namespace: [a]\n",
                "deja.yaml:3: unknown key 'namespace' in sources.cluster");
        refused(
                "rules:\n  severity:\n    no-such-rule: high\n",
                "deja.yaml:3: unknown rule 'no-such-rule'");
        refused(
                "rules:\n  severity:\n    haproxy-tarpit-holds-slots: urgent\n",
                "deja.yaml:3: unknown severity 'urgent'");
        refused("failOn: sometimes\n", "deja.yaml:1: unknown severity");
        refused("allowPartial: yes please\n", "deja.yaml:1: expected true or false");
        refused("outputs:\n  - {format: json}\n", "deja.yaml:2: missing 'path'");
        refused(
                "suppressions:\n  - rule: kube-lb-pods-fail-together\n    objekt: x\n    reason: r\n",
                "deja.yaml:3: unknown key 'objekt'");
        refused(
                "sources:\n  haproxy:\n    configMaps: [haproxy-config]\n",
                "deja.yaml:3: ConfigMap 'haproxy-config' is not NAMESPACE/NAME");
        refused(
                "sources:\n  haproxy:\n    assumeClientRps: -3\n",
                "deja.yaml:3: expected a positive whole number");
        refused("- a\n- b\n", "deja.yaml:1: the top level must be a mapping");
        refused("failOn: high\nfailOn: low\n", "deja.yaml:2: duplicate key 'failOn'");
        refused("sources: [\n", "deja.yaml:2: not valid YAML");
        refused(
                "sources:\n  aws:\n    regions: [\"eu-west-1\\0us-east-1\"]\n",
                "deja.yaml:3: value holds a NUL character");
        refused(
                "sources:\n  cluster: {kubeconfig: \"kc\\0\"}\n",
                "deja.yaml:2: value holds a NUL character");
    }

    @Test
    void emptyFileIsNoOptions() {
        ConfigFile c = parse("");
        assertNull(c.option("--fail-on"));
        assertTrue(c.optionNames().isEmpty());
        assertEquals(List.of(), c.paths);
    }

    @Test
    void commandLineOverridesTheFile() {
        ScanCommand cmd = quietScan();
        CommandLine cl = new CommandLine(cmd.spec());
        cl.parseArgs("--fail-on", "low", "-n", "only", "--env", "PORT=9090", "--output", "text=-");
        parse(FULL).applyTo(cmd, cl);
        assertEquals("low", cmd.out.failOn, "flag wins");
        assertEquals(
                List.of("only"),
                cmd.kube.namespaces,
                "a list on the command line replaces the file's");
        assertEquals(Map.of("PORT", "9090"), cmd.files.env, "the command line wins per --env key");
        assertEquals(List.of("text=-"), cmd.out.report.outputs);
        assertEquals("low", cmd.rules.minSeverity, "not given: from the file");
        assertEquals(List.of("prod"), cmd.kube.contexts);
        assertEquals(true, cmd.out.allowPartial);
        assertEquals(true, cmd.kube.noAnnotationSuppressions);
        assertEquals(List.of("/etc/deja/manifests", "/etc/haproxy/haproxy.cfg"), cmd.paths);
    }

    @Test
    void fleetKeys() {
        ScanCommand cmd = quietScan();
        CommandLine cl = new CommandLine(cmd.spec());
        cl.parseArgs("--role-arn", "arn:aws:iam::111111111111:role/cli");
        parse(
                        "sources:\n  cluster: {contexts: [prod, stage], name: ignored-by-several}\n"
                                + "  aws: {profiles: [a, b], roleArns: ['arn:aws:iam::222222222222:role/file'], externalId: x}\n")
                .applyTo(cmd, cl);
        assertEquals(List.of("prod", "stage"), cmd.kube.contexts);
        assertEquals(List.of("a", "b"), cmd.aws.profiles);
        assertEquals(
                List.of("arn:aws:iam::111111111111:role/cli"),
                cmd.aws.roleArns,
                "the command line replaces the list");
        assertEquals("x", cmd.aws.externalId);
        ScanCommand all = quietScan();
        CommandLine c2 = new CommandLine(all.spec());
        c2.parseArgs();
        parse("sources:\n  cluster: {allContexts: true}\n").applyTo(all, c2);
        assertTrue(all.kube.allContexts);
    }

    static final String EVERY_KEY =
            """
            sources:
              paths: [a.cfg]
              haproxy: {paths: [b.cfg], configMaps: [ns/cm], version: "2.8", env: {A: b}, assumeClientRps: 10}
              helm: {values: [v.yaml], set: {k: v}}
              cluster: {enabled: true, kubeconfig: kc, context: c1, contexts: [c2], allContexts: false, name: n,
                        namespaces: [ns], selector: a=b, annotationSuppressions: true, liveMetrics: true,
                        liveMetricsTimeout: 2s}
              aws: {enabled: true, profile: p1, profiles: [p2], roleArns: ['arn:aws:iam::111111111111:role/r'],
                    externalId: x, regions: [eu-west-1], endpoint: http://127.0.0.1:1}
              prometheus: {url: http://127.0.0.1:9090, window: 1d, bearerTokenFile: t, basicAuthFile: b, caFile: ca}
            rules:
              enabled: [haproxy-tarpit-holds-slots]
              disabled: [aws-nlb-zone-health-hidden]
              minSeverity: low
            failOn: none
            allowPartial: true
            ignoreFile: ignore.yaml
            outputs: [{format: json, path: out.json}]
            baseline: base.json
            reportConfigMap: deja/report
            notify: http://127.0.0.1:2
            pushgateway: http://127.0.0.1:3
            snapshotOut: snap.json
            """;

    @Test
    void everyKeyIsAScanOptionByItsLongestName() {
        CommandLine cl = new CommandLine(quietScan().spec());
        ConfigFile c = parse(EVERY_KEY);
        assertEquals(37, c.optionNames().size(), c.optionNames().toString());
        for (String name : c.optionNames()) {
            CommandLine.Model.OptionSpec o = cl.getCommandSpec().findOption(name);
            assertTrue(
                    o != null && o.longestName().equals(name),
                    name + " is not a scan option's longest name");
            // a list reaches picocli joined by the split regex, which must be a literal no value
            // holds
            assertTrue(
                    !o.isMultiValue() || List.of(",", "\u0000").contains(o.splitRegex()),
                    name + ": " + o.splitRegex());
        }
    }

    @Test
    void theFileFillsWhatTheCommandLineLeaves(@TempDir Path tmp) {
        ScanCommand cmd = quietScan();
        CommandLine cl = new CommandLine(cmd.spec());
        cl.parseArgs(
                "--allow-partial", "--cluster", "-A", "--context", "cli", "--region", "us-east-2");
        ConfigFile.parse(
                        EVERY_KEY
                                .replace("allContexts: false", "allContexts: true")
                                .replace("enabled: true, kubeconfig", "enabled: false, kubeconfig"),
                        "deja.yaml",
                        tmp,
                        CATALOG)
                .applyTo(cmd, cl);
        assertTrue(cmd.out.allowPartial, "a flag given stays set when the file sets it too");
        assertTrue(cmd.kube.cluster, "the flag wins over enabled: false");
        assertEquals(List.of(), cmd.kube.namespaces, "-A replaces the file's namespaces");
        assertEquals(List.of("cli"), cmd.kube.contexts);
        assertTrue(!cmd.kube.allContexts, "--context replaces the file's allContexts");
        assertEquals(List.of("us-east-2"), cmd.aws.regions);
        assertEquals(List.of("p1", "p2"), cmd.aws.profiles, "profile, then profiles");
        assertEquals(
                List.of(tmp.resolve("v.yaml")), cmd.files.helmValues, "converted as a typed FILE");
        assertEquals(List.of("k=v"), cmd.files.helmSet);
        assertEquals(10, cmd.files.assumeClientRps);
        assertEquals(Map.of("A", "b"), cmd.files.env);
        assertEquals("none", cmd.out.failOn);
        assertEquals(List.of("haproxy-tarpit-holds-slots"), cmd.rules.onlyRules);
        assertEquals(tmp.resolve("snap.json"), cmd.out.snapshotOut);
        assertEquals("1d", cmd.live.window);
        assertEquals("2s", cmd.kube.liveMetricsTimeout);
        assertEquals(
                List.of(tmp.resolve("a.cfg").toString(), tmp.resolve("b.cfg").toString()),
                cmd.paths);
        // nothing in the file: the built-in defaults
        cmd = quietScan();
        CommandLine c2 = new CommandLine(cmd.spec());
        c2.parseArgs("x.cfg");
        parse("").applyTo(cmd, c2);
        assertEquals("medium", cmd.out.failOn);
        assertEquals(300, cmd.files.assumeClientRps);
        assertEquals(List.of("x.cfg"), cmd.paths);
        assertTrue(!cmd.out.allowPartial && !cmd.kube.cluster);
    }

    @Test
    void configMapsNeedTheCluster() {
        ScanCommand cmd = quietScan();
        CommandLine cl = new CommandLine(cmd.spec());
        cl.parseArgs();
        ConfigFile c = parse("sources:\n  haproxy:\n    configMaps: [ingress/haproxy]\n");
        InputException e = assertThrows(InputException.class, () -> c.applyTo(cmd, cl));
        assertTrue(e.getMessage().contains("enable sources.cluster"), e.getMessage());
    }

    @Test
    void endToEndThroughTheCli(@TempDir Path tmp) throws Exception {
        Path snap = tmp.resolve("snap.json");
        SnapshotFile.write(
                new SnapshotBuilder().read("kubernetes", "Deployment in all namespaces", 3).build(),
                snap);
        Path cfg = tmp.resolve("deja.yaml");
        Files.writeString(
                cfg,
                """
                sources:
                  paths: [snap.json]
                failOn: none
                outputs:
                  - {format: json, path: out/deja.json}
                suppressions:
                  - {rule: "*", object: "nothing/*", reason: test}
                """);
        TestSupport.Run r = TestSupport.run("scan", "--config", cfg.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(
                Files.exists(tmp.resolve("out/deja.json")),
                "relative paths resolve against the config's folder");

        Files.writeString(cfg, "sources:\n  paths: [snap.json]\nnotfiy: http://x\n");
        r = TestSupport.run("scan", "--config", cfg.toString());
        assertEquals(2, r.code());
        assertEquals(
                "deja: "
                        + cfg
                        + ":3: unknown key 'notfiy' in the top level (expected sources, rules, rulesDirs, celCostLimit, failOn,"
                        + " allowPartial, suppressions, ignoreFile, outputs, baseline, reportConfigMap, notify, pushgateway, snapshotOut)"
                        + " (did you mean notify?)",
                r.err().strip());
        r = TestSupport.run("scan", "--config", tmp.resolve("missing.yaml").toString());
        assertEquals(2, r.code());
        assertTrue(r.err().contains("config file not found"), r.err());
    }

    /**
     * A value the file gives that the checks after parsing refuse (an option only valid with
     * another, a time that is not one) names the file and the key's line, as the file's other
     * errors do; the same value typed on the command line is named by its option only.
     */
    @Test
    void checksAfterParsingNameTheFileAndLine(@TempDir Path tmp) throws Exception {
        Path snap = tmp.resolve("snap.json");
        SnapshotFile.write(
                new SnapshotBuilder().read("kubernetes", "Deployment in all namespaces", 3).build(),
                snap);
        Path cfg = tmp.resolve("deja.yaml");
        Files.writeString(
                cfg,
                """
                sources:
                  paths: [snap.json]
                  cluster:
                    enabled: false
                    liveMetrics: true
                """);
        TestSupport.Run r = TestSupport.run("scan", "--config", cfg.toString());
        assertEquals(2, r.code(), r.err());
        assertEquals(
                "deja: "
                        + cfg
                        + ":5: --live-metrics: only with --cluster (it reads the proxy pods through the"
                        + " API server)",
                r.err().strip());

        Files.writeString(
                cfg,
                """
                sources:
                  paths: [snap.json]
                  cluster:
                    liveMetrics: true
                    liveMetricsTimeout: soon
                """);
        r = TestSupport.run("scan", "--config", cfg.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().startsWith("deja: " + cfg + ":5: --live-metrics-timeout soon: "), r.err());
        assertEquals(1, r.err().strip().lines().count(), r.err());
        // typed on the command line, the value is the command line's: no file:line
        r = TestSupport.run("scan", "--config", cfg.toString(), "--live-metrics-timeout", "later");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().startsWith("deja: --live-metrics-timeout later: "), r.err());

        Files.writeString(
                cfg,
                """
                sources:
                  paths: [snap.json]
                  prometheus:
                    url: http://127.0.0.1:9/
                    window: 7x
                """);
        r = TestSupport.run("scan", "--config", cfg.toString());
        assertEquals(2, r.code(), r.err());
        assertTrue(
                r.err().startsWith("deja: " + cfg + ":5: --window '7x': not a PromQL range"),
                r.err());
    }

    /**
     * A switch the file turns on is turned off by its --no- form on the command line; the file's
     * other values stay.
     */
    @Test
    void noFormsTurnOffTheFilesSwitches(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("deja.yaml");
        Files.writeString(
                cfg,
                """
                sources:
                  cluster: {liveMetrics: true, allContexts: true}
                  aws: {regions: [eu-west-2]}
                allowPartial: true
                failOn: low
                """);
        ScanCommand cmd = quietScan();
        CommandLine cl = new CommandLine(cmd.spec());
        cl.parseArgs("--no-allow-partial", "--no-live-metrics", "--no-all-contexts", "--no-aws");
        ConfigFile.load(cfg, Catalog.packaged()).applyTo(cmd, cl);
        assertTrue(
                !cmd.out.allowPartial
                        && !cmd.kube.liveMetrics
                        && !cmd.kube.allContexts
                        && !cmd.aws.aws);
        assertTrue(cmd.kube.cluster, "the cluster section still turns the cluster on");
        assertEquals("low", cmd.out.failOn, "the file's other values stay");

        cmd = quietScan();
        cl = new CommandLine(cmd.spec());
        cl.parseArgs("--no-cluster", "--allow-partial");
        ConfigFile.load(cfg, Catalog.packaged()).applyTo(cmd, cl);
        assertTrue(
                !cmd.kube.cluster && cmd.out.allowPartial && cmd.aws.aws,
                "--no-cluster; the file's switches");
        cmd.kube.check();
        assertTrue(!cmd.kube.cluster, "the file's allContexts does not turn --no-cluster back on");
    }

    /**
     * annotationSuppressions: false in the file is undone for one run by --annotation-suppressions
     * (the negated form of --no-annotation-suppressions): the deja.dev/ignore annotation of a
     * manifest suppresses its findings again, as without the file.
     */
    @Test
    void annotationSuppressionsTurnsTheFilesFalseBackOn(@TempDir Path tmp) throws Exception {
        Path svc =
                Files.writeString(
                        tmp.resolve("svc.yaml"),
                        """
                        apiVersion: v1
                        kind: Service
                        metadata:
                          name: edge
                          namespace: web
                          annotations:
                            service.beta.kubernetes.io/aws-load-balancer-type: nlb
                            deja.dev/ignore: "k8s-nlb-service-single-zone-risk,k8s-lb-not-spread single-zone test cluster"
                        spec: {type: LoadBalancer}
                        """);
        Path cfg =
                Files.writeString(
                        tmp.resolve("deja.yaml"),
                        "sources:\n  cluster: {enabled: false, annotationSuppressions: false}\n");
        String[] scan = {"scan", "--config", cfg.toString(), "--format", "json", svc.toString()};

        TestSupport.Run off = TestSupport.run(scan);
        assertEquals(1, off.code(), "the file turns the annotation off: " + off.err());
        assertEquals(
                "k8s-nlb-service-single-zone-risk",
                TestSupport.json(off.out()).at("/findings/0/ruleId").asString(),
                off.out());

        String[] on = Arrays.copyOf(scan, scan.length + 1);
        on[scan.length] = "--annotation-suppressions";
        TestSupport.Run r = TestSupport.run(on);
        assertEquals(0, r.code(), r.err());
        assertEquals(0, TestSupport.json(r.out()).at("/findings").size(), r.out());
        assertTrue(r.out().contains("single-zone test cluster"), "suppressed, with its reason");
    }

    /** A scan command whose output goes nowhere, with no stdin and no environment. */
    private static ScanCommand quietScan() {
        return new ScanCommand(
                new Cli.Io(
                        new PrintWriter(new StringWriter()),
                        new PrintWriter(new StringWriter()),
                        new ByteArrayInputStream(new byte[0]),
                        Map.of(),
                        false));
    }
}
