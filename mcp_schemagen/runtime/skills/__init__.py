"""The Skills extension (SEP-2640): skills/list and skills/get over the build's entries."""
