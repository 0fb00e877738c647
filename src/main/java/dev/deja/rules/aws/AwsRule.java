package dev.deja.rules.aws;

import dev.deja.engine.Rule;
import dev.deja.engine.SourceKind;

/** What the AWS rules share: their source and their id. */
abstract class AwsRule implements Rule {
    private final String id;

    AwsRule(String id) {
        this.id = id;
    }

    @Override
    public final String id() {
        return id;
    }

    @Override
    public final SourceKind source() {
        return SourceKind.AWS;
    }
}
