print("healthbridge")
