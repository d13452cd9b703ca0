"""Import of DoTime suite folders (on-disk schemas "1" and "2") as releases of this package."""
