let v = "__VERSION"
"__SHA256_a_" x__SHA256_b__ "__SHA256_a__b__"
