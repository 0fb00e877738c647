package dev.deja.report;

import tools.jackson.databind.node.ObjectNode;

/**
 * What {@code deja scan --prove} attaches to a finding: the verdict of a replay on the real haproxy
 * ({@code reproduced}, {@code not-reproduced}, {@code could-not-run}), a one-line summary for text
 * reports, the figures as JSON (JSON {@code evidence}, SARIF result {@code properties.evidence})
 * and an HTML fragment.
 */
public record Evidence(String verdict, String summary, ObjectNode json, String html) {}
