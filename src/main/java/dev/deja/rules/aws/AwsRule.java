package dev.deja.rules.aws;

import dev.deja.engine.Rule;
import dev.deja.engine.SourceKind;
import dev.deja.model.aws.AwsInventory;
import java.util.List;

/** What the AWS rules share: their source and their id. */
abstract class AwsRule implements Rule {

    /** The AWS inventory, unless a rule reads other parts. */
    @Override
    public List<Class<?>> parts() {
        return List.of(AwsInventory.class);
    }

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
