package dev.deja.source;

/**
 * One input file, read whole. {@code display} is how findings name it (the path as the user gave
 * it, or {@code <stdin>}); {@code text} is its content decoded as UTF-8.
 */
public record SourceFile(String display, String text) {}
