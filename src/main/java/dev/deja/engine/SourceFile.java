package dev.deja.engine;

/**
 * One input file, read whole. {@code display} is how findings name it (the path as the user gave
 * it, or {@code <stdin>}); {@code text} is its content decoded as UTF-8; {@code lineMap}, for a
 * generated file (a chart template's rendered output), maps its lines to the lines of the file it
 * was made from, else null.
 */
public record SourceFile(String display, String text, LineMap lineMap) {
    public SourceFile(String display, String text) {
        this(display, text, null);
    }
}
