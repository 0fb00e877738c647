package dev.deja.report;

import dev.deja.engine.Catalog;
import dev.deja.engine.ScanResult;
import dev.deja.engine.Severity;

/**
 * What a reporter renders: the scan result, the catalog (for case stories and rule titles), the tool version, the
 * fail-on threshold, and whether colour is wanted (only on a terminal).
 */
public record Report(ScanResult result, Catalog catalog, String toolVersion, Severity failOn, boolean color) {
}
