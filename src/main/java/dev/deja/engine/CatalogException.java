package dev.deja.engine;

/** The packaged rule or case metadata is malformed. */
public final class CatalogException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CatalogException(String message) {
        super(message);
    }
}
