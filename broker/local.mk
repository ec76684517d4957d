# broker
