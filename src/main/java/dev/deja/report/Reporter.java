package dev.deja.report;

import java.io.IOException;
import java.io.Writer;

/** Renders a report in one format. */
public interface Reporter {
    void write(Report report, Writer out) throws IOException;
}
