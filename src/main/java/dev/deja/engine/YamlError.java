package dev.deja.engine;

import org.yaml.snakeyaml.error.MarkedYAMLException;

/** A YAML file that does not parse, as an input error that names its line. */
public final class YamlError {
    private YamlError() {}

    /**
     * "deja.yaml:3: not valid YAML: mapping values are not allowed here": {@code where}, the line
     * (when the parser knows it), what the file is not, and the parser's problem.
     */
    public static InputException of(Object where, String notWhat, MarkedYAMLException e) {
        int line =
                e.getProblemMark() != null
                        ? e.getProblemMark().getLine() + 1
                        : e.getContextMark() != null ? e.getContextMark().getLine() + 1 : 0;
        return new InputException(
                where
                        + (line > 0 ? ":" + line : "")
                        + ": "
                        + notWhat
                        + ": "
                        + (e.getProblem() != null ? e.getProblem() : e.getContext()));
    }
}
