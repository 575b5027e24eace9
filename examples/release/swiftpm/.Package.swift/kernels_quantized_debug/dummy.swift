// Wrapper target stub: SwiftPM needs a source.
