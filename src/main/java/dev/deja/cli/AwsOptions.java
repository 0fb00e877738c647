package dev.deja.cli;

import dev.deja.engine.InputException;
import dev.deja.source.ScanRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code deja scan --aws}: which accounts and regions are read (--profile and --region also serve
 * s3:// outputs).
 */
final class AwsOptions {
    boolean aws;

    List<String> profiles = new ArrayList<>();

    List<String> roleArns = new ArrayList<>();

    String externalId;

    List<String> regions = new ArrayList<>();

    String awsEndpoint;

    /** The options above, for picocli (see {@link Opt}). */
    void declare(CommandSpec s) {
        s.addOption(
                Opt.named("--aws")
                        .negatable()
                        .description(
                                "Scan AWS load balancers (ELBv2) with the default credential chain (--no-aws: not even when deja.yaml has an aws section)")
                        .flag(this, "aws"));
        s.addOption(
                Opt.named("--profile")
                        .label("NAME")
                        .split("\u0000")
                        .splitLabel("")
                        .description("AWS profile; repeat it to scan several accounts in one run")
                        .list(String.class, this, "profiles"));
        s.addOption(
                Opt.named("--role-arn")
                        .label("ARN")
                        .split("\u0000")
                        .splitLabel("")
                        .description(
                                "Also scan the account of this IAM role, assumed with STS AssumeRole (session name deja) from the default credentials (repeatable)")
                        .list(String.class, this, "roleArns"));
        s.addOption(
                Opt.named("--external-id")
                        .label("ID")
                        .description("External id for --role-arn's AssumeRole")
                        .value(String.class, this, "externalId"));
        s.addOption(
                Opt.named("--region")
                        .label("REGION")
                        .split("\u0000")
                        .splitLabel("")
                        .description("AWS region (repeatable; default from profile or environment)")
                        .list(String.class, this, "regions"));
        s.addOption(
                Opt.named("--aws-endpoint")
                        .label("URL")
                        .description("ELBv2/EC2 endpoint override (emulators, tests)")
                        .value(String.class, this, "awsEndpoint"));
    }

    void check() {
        aws = aws || !roleArns.isEmpty();
    }

    /** {@code s3}: an output goes to S3, which --profile and --region also serve. */
    void checkApplies(ParseResult given, boolean s3) {
        if (externalId != null && roleArns.isEmpty()) {
            throw new InputException(
                    "--external-id: only with --role-arn (it is passed to AssumeRole)");
        }
        List<String> awsOnly = new ArrayList<>();
        for (String o : List.of("--region", "--profile", "--aws-endpoint")) {
            if (given.hasMatchedOption(o) && !aws && !(s3 && !o.equals("--aws-endpoint"))) {
                awsOnly.add(o);
            }
        }
        if (!awsOnly.isEmpty()) {
            throw new InputException(
                    String.join(", ", awsOnly)
                            + ": only with --aws"
                            + (awsOnly.contains("--aws-endpoint") ? "" : " or an s3:// output"));
        }
    }

    /**
     * The first region named by --region (a value may list several, comma-separated; empty names
     * are skipped, as the AWS source skips them), or null when none is: the S3 client then takes
     * the environment's or the profile's.
     */
    String firstRegion() {
        return regions.stream()
                .flatMap(r -> Arrays.stream(r.split(",")))
                .map(String::strip)
                .filter(r -> !r.isEmpty())
                .findFirst()
                .orElse(null);
    }

    void into(ScanRequest.Builder req) {
        req.aws = aws;
        req.profile = profiles.size() == 1 ? profiles.get(0) : null;
        req.externalId = externalId;
        req.regions = List.copyOf(regions);
        req.awsEndpoint = awsEndpoint;
    }

    /**
     * The accounts this run reads: each --profile and --role-arn (repeatable), else the default
     * credentials.
     */
    List<FleetScan.Spec> targets() {
        List<FleetScan.Spec> out = new ArrayList<>();
        if (!aws) {
            return out;
        }
        for (String p : new LinkedHashSet<>(profiles)) {
            out.add(new FleetScan.Spec(false, null, p, null, p, false));
        }
        for (String arn : new LinkedHashSet<>(roleArns)) {
            if (!arn.strip().matches("arn:aws[a-z-]*:iam::\\d{12}:role/.+")) {
                throw new InputException(
                        "--role-arn "
                                + arn
                                + ": not an IAM role ARN (arn:aws:iam::123456789012:role/NAME)");
            }
            out.add(
                    new FleetScan.Spec(
                            false, null, null, arn.strip(), arn.strip().split(":")[4], false));
        }
        if (profiles.isEmpty() && roleArns.isEmpty()) {
            out.add(new FleetScan.Spec(false, null, null, null, "default", false));
        }
        return out;
    }
}
