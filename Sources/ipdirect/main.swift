import IPDirectCore
import IPDirectIO
print("ipdirect \(IPDirectVersion.string)")
