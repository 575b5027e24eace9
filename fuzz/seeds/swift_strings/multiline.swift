let s = """
  a\
  b

  \(1 +
  2)
  """
let r = #"""
  #endif
  """#
