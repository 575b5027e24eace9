// swift-tools-version:5.9#if falseA#elseif swift(>=5.10)
B
_ = 0; #else // c
C
#endif
