let a = "x\(f("y") /* c */)z" // end
let b = #"r\"q"# + ##"s"#"##
let c = #"""abc"""#
let d = "\u{1F600}\t\0"
