# policy
