package dev.deja.engine;

/**
 * A mutable accumulator a source fills while reading; {@link #build()} yields the immutable
 * snapshot part.
 */
public interface PartBuilder<T> {
    Class<T> partType();

    T build();
}
